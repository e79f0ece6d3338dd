package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrNotRegular is what [OpenRegular] and [ReadRegular] return (wrapped in a
// [*NotRegularError]) for a directory, FIFO, socket or device.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is what [ReadRegular] returns (wrapped) for a file over its
// limit.
var ErrTooLarge = errors.New("file too large")

// NotRegularError says what a path is instead of a regular file.
type NotRegularError struct {
	Path string
	// Kind is "directory", "fifo", "socket", "device" or "not a regular file".
	Kind string
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is a %s, not a regular file", e.Path, e.Kind)
}

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// KindOf names what a file mode is, for messages.
func KindOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	default:
		return "not a regular file"
	}
}

// OpenRegular opens path for reading only if it is a regular file (a
// symlink to one counts). The type is checked with stat before the open, so
// a device is never opened, and the open does not block (O_NONBLOCK where
// the platform has FIFOs), so a FIFO swapped in after the stat cannot hang
// the caller; the opened file is checked again.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	return openRegular(hostOps{}, path)
}

func openRegular(ops dirOps, path string) (*os.File, fs.FileInfo, error) {
	fi, err := ops.Stat(path)
	if err != nil {
		return nil, nil, describeStatError(path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: path, Kind: KindOf(fi.Mode())}
	}
	var f *os.File
	err = retry(func() (err error) {
		f, err = ops.OpenFile(path, openRegularFlags, 0)
		return err
	}, openBlockedByReplace, time.Sleep, ReadRetryDeadline)
	if err != nil {
		return nil, nil, describeStatError(path, err)
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Kind: KindOf(fi.Mode())}
	}
	return f, fi, nil
}

// ReadRegular reads the regular file at path (see [OpenRegular]) whole,
// refusing without reading it a file larger than limit bytes (limit < 0:
// no limit). At most limit+1 bytes are ever read, even from a file that
// grows while it is read.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadOpened(path, f, fi, limit)
}

// ReadOpened reads the regular file f, opened from path with Stat fi (as
// [OpenRegular] returns them), whole under limit as [ReadRegular] does.
// It does not close f.
func ReadOpened(path string, f *os.File, fi fs.FileInfo, limit int64) ([]byte, error) {
	if limit >= 0 && fi.Size() > limit {
		return nil, fmt.Errorf("%s: %w: %d bytes, the limit is %d", path, ErrTooLarge, fi.Size(), limit)
	}
	var r io.Reader = f
	if limit >= 0 {
		r = io.LimitReader(f, limit+1)
	}
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	if limit >= 0 && int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w: it grew past the limit of %d bytes while being read", path, ErrTooLarge, limit)
	}
	return data, nil
}

// describeStatError makes a symlink loop say so; other errors pass as they
// are (fs.ErrNotExist stays testable with errors.Is).
func describeStatError(path string, err error) error {
	if IsSymlinkLoop(err) {
		return fmt.Errorf("%s is a symbolic link loop: %w", path, err)
	}
	return err
}

// RemoveStaleTemps removes the temporary files [WriteFileAtomic] leaves
// beside path when its writer is killed between creating and renaming
// them. Call it only while holding the lock every writer of path takes:
// then no temporary file can belong to a live writer.
func RemoveStaleTemps(path string) error {
	dir := filepath.Dir(path)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	prefix := "." + filepath.Base(path) + ".tmp-"
	var errs []error
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
