package fsx

import (
	"io/fs"
	"os"
)

// OpenRegularIn opens name (relative, slash or OS separated) inside the
// directory dir through an [os.Root], so neither ".." nor a symlink
// anywhere on the way — even one swapped in while the call runs — can take
// the open outside dir; such an open fails. Like [OpenRegular] it refuses
// anything but a regular file without blocking on a FIFO.
func OpenRegularIn(dir, name string) (*os.File, fs.FileInfo, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	fi, err := r.Stat(name)
	if err != nil {
		return nil, nil, describeStatError(name, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: name, Kind: KindOf(fi.Mode())}
	}
	f, err := r.OpenFile(name, openRegularFlags, 0)
	if err != nil {
		return nil, nil, describeStatError(name, err)
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: name, Kind: KindOf(fi.Mode())}
	}
	return f, fi, nil
}
