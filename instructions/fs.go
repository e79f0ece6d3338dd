package instructions

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// FS is the filesystem the package looks at. It has no way to list a
// directory: every lookup is a stat of a name the caller already knows.
type FS interface {
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	// ReadFile reads a regular file. It must refuse anything else rather
	// than block on it (a FIFO swapped in after the stat).
	ReadFile(name string) ([]byte, error)
}

// OS is the operating system's filesystem.
var OS FS = osFS{}

type osFS struct{}

func (osFS) Stat(name string) (fs.FileInfo, error)  { return os.Stat(name) }
func (osFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// ReadFile opens without blocking and checks the opened file is regular, so
// a FIFO that replaced the file after the stat cannot hang the process.
func (osFS) ReadFile(name string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", name, errNotRegular)
	}
	return io.ReadAll(f)
}

var errNotRegular = errors.New("not a regular file")

func orOS(f FS) FS {
	if f == nil {
		return OS
	}
	return f
}
