package fsx

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

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
