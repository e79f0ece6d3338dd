package instructions

import (
	"io"
	"io/fs"
	"os"

	"github.com/agentlineage/lineage/internal/fsx"
)

// FS is the filesystem the package looks at. It has no way to list a
// directory: every lookup is a stat of a name the caller already knows.
type FS interface {
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	// OpenRegular opens a regular file for reading. It must refuse anything
	// else rather than block on it (a FIFO swapped in after the stat).
	// Callers read only as much as they may still use.
	OpenRegular(name string) (io.ReadCloser, error)
}

// OS is the operating system's filesystem.
var OS FS = osFS{}

type osFS struct{}

func (osFS) Stat(name string) (fs.FileInfo, error)  { return os.Stat(name) }
func (osFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// OpenRegular checks the type, then opens without blocking and checks the
// opened file again (see [fsx.OpenRegular]).
func (osFS) OpenRegular(name string) (io.ReadCloser, error) {
	f, _, err := fsx.OpenRegular(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func orOS(f FS) FS {
	if f == nil {
		return OS
	}
	return f
}
