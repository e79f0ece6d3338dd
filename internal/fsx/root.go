package fsx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The *In functions are the file operations of this package performed
// through an [os.Root]: every name is resolved inside the root's
// directory, whose descriptor the root holds, so a symbolic link swapped
// in at any step — the directory itself renamed away, a component turned
// into a link to elsewhere — can neither lead the operation outside nor
// split it between two directories. Use them wherever a path was checked
// to be inside a boundary: checking a path and then opening it by name is
// a race, opening through the root is not. Names are slash or OS
// separated, relative to the root; errors name root.Name() joined with
// the name.

// dirOps are the operations the lock, read and write helpers need, done
// by the os package on paths or by an [os.Root] on names inside it.
type dirOps interface {
	OpenFile(name string, flag int, perm os.FileMode) (*os.File, error)
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	Remove(name string) error
}

// hostOps are the os package's own functions on paths.
type hostOps struct{}

func (hostOps) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	if flag == os.O_RDONLY {
		return openShared(name)
	}
	return os.OpenFile(name, flag, perm)
}
func (hostOps) Stat(name string) (fs.FileInfo, error)  { return os.Stat(name) }
func (hostOps) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }
func (hostOps) Remove(name string) error               { return os.Remove(name) }

// rootPath is how a name inside root is shown in messages.
func rootPath(root *os.Root, name string) string {
	return filepath.Join(root.Name(), filepath.FromSlash(name))
}

// renameRootError restates an [os.Root] error on a name with the full path.
func renameRootError(root *os.Root, name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: rootPath(root, name), Err: pe.Err}
	}
	return err
}

// OpenDirIn opens the directory rel inside root as a root of its own,
// creating it and its parents (mode 0755) first when create is set. A
// component that is a symbolic link leading outside root, or anything but
// a directory, is refused. The returned root stays on the directory it
// opened whatever is renamed afterwards.
func OpenDirIn(root *os.Root, rel string, create bool) (*os.Root, error) {
	if rel == "" {
		rel = "."
	}
	if create && rel != "." {
		if err := root.MkdirAll(rel, 0o755); err != nil {
			return nil, renameRootError(root, rel, err)
		}
	}
	dir, err := root.OpenRoot(rel)
	if err != nil {
		return nil, renameRootError(root, rel, err)
	}
	return dir, nil
}

// LockFileIn is [LockFile] on the file name inside root.
func LockFileIn(ctx context.Context, root *os.Root, name string) (*Lock, error) {
	for {
		l, err := lockOnce(ctx, root, name, rootPath(root, name))
		if err != nil || l != nil {
			return l, err
		}
	}
}

// WriteFileAtomicIn is [WriteFileAtomic] on the file name inside root:
// the temporary file is created in the root's directory, renamed over
// name there, and that directory is synced.
func WriteFileAtomicIn(root *os.Root, name string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(filepath.FromSlash(name))
	var rnd [8]byte
	rand.Read(rnd[:])
	tmpName := filepath.Join(dir, "."+filepath.Base(name)+".tmp-"+hex.EncodeToString(rnd[:]))
	return replaceWithTempIn(root, name, tmpName, os.O_EXCL, 0o600, data, perm)
}

// replaceWithTempIn writes data into tmpName inside root (created with
// O_CREATE and extra, with mode create), renames it over name and syncs
// the directory; on failure the temporary file is removed. The atomic and
// the locked writes differ only in the temporary name and how it is made.
func replaceWithTempIn(root *os.Root, name, tmpName string, extra int, create os.FileMode, data []byte, perm os.FileMode) (err error) {
	path := rootPath(root, name)
	tmp, err := root.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|extra, create)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, renameRootError(root, tmpName, err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			root.Remove(tmpName)
		}
	}()
	if err = fillTemp(tmp, path, data, perm); err != nil {
		return err
	}
	if err = replaceIn(root, tmpName, name); err != nil {
		return fmt.Errorf("write %s: %w", path, renameRootError(root, name, err))
	}
	return syncDirIn(root, filepath.Dir(filepath.FromSlash(name)))
}

// replaceIn renames oldname over newname inside root. On Windows a file
// another process holds open without FILE_SHARE_DELETE (Go's os.Open does)
// refuses the replace for as long as it is open, so that is retried for up
// to [ReplaceDeadline], as [WriteFileAtomic] does.
func replaceIn(root *os.Root, oldname, newname string) error {
	return retry(func() error { return root.Rename(oldname, newname) }, replaceBlocked, time.Sleep, ReplaceDeadline)
}

// RemoveStaleTempsIn is [RemoveStaleTemps] for the file name inside root.
func RemoveStaleTempsIn(root *os.Root, name string) error {
	dir := filepath.Dir(filepath.FromSlash(name))
	d, err := root.Open(dir)
	if err != nil {
		return renameRootError(root, dir, err)
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return err
	}
	prefix := "." + filepath.Base(name) + ".tmp-"
	var errs []error
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, renameRootError(root, p, err))
		}
	}
	return errors.Join(errs...)
}

// OpenRegularIn is [OpenRegular] through an [os.Root]: name is relative to
// the root and cannot leave it (".." or a symbolic link out is an error),
// the type is checked before the open, the open does not block, and the
// opened file is checked again.
func OpenRegularIn(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	fi, err := root.Stat(name)
	if err != nil {
		return nil, nil, describeStatError(name, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: name, Kind: KindOf(fi.Mode())}
	}
	f, err := root.OpenFile(name, openRegularFlags, 0)
	if err != nil {
		return nil, nil, describeStatError(name, err)
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: name, Kind: KindOf(fi.Mode())}
	}
	return f, fi, nil
}

// ReadRegularIn is [ReadRegular] through an [os.Root] (see [OpenRegularIn]).
func ReadRegularIn(root *os.Root, name string, limit int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := OpenRegularIn(root, name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if limit >= 0 && fi.Size() > limit {
		return nil, nil, fmt.Errorf("%s: %w: %d bytes, the limit is %d", name, ErrTooLarge, fi.Size(), limit)
	}
	var r io.Reader = f
	if limit >= 0 {
		r = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	if limit >= 0 && int64(len(data)) > limit {
		return nil, nil, fmt.Errorf("%s: %w: it grew past the limit of %d bytes while being read", name, ErrTooLarge, limit)
	}
	return data, fi, nil
}

// WriteFileLockedIn is [WriteFileLocked] on the file name inside root.
func WriteFileLockedIn(root *os.Root, name string, data []byte, perm os.FileMode) error {
	return replaceWithTempIn(root, name, name+LockedTempSuffix, os.O_TRUNC, perm, data, perm)
}
