package confine

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes the file at path (absolute) through the allowed root
// that holds it ([os.Root]), as [Roots.OpenRegular] reads: a temporary
// file beside it is written by write, synced and renamed over path, so a
// reader sees the old file or the whole new one, and no symbolic link
// swapped in at any moment leads the write outside the root. A path in no
// root, or one that would leave it, is an [*OutsideError] (inside an
// [fs.PathError]); on any error nothing is left behind.
func (r Roots) WriteFile(path string, perm fs.FileMode, write func(io.Writer) error) error {
	path = filepath.Clean(path)
	dir, rel, ok := r.holder(path)
	if !ok {
		return &fs.PathError{Op: "write", Path: path, Err: r.Check(path)}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".tmp-"+hex.EncodeToString(nonce[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return r.outside(path, err)
	}
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, rel)
	}
	if err != nil {
		_ = root.Remove(tmp)
		return r.outside(path, err)
	}
	return nil
}

// outside turns an [os.Root] refusal into an [*OutsideError] naming path.
func (r Roots) outside(path string, err error) error {
	if !escapes(err) {
		return err
	}
	return &fs.PathError{Op: "write", Path: path, Err: &OutsideError{Path: path, Roots: r.Dirs()}}
}
