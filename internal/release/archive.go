package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"os"
	"time"
)

// archiveFile is one file packed into an archive.
type archiveFile struct {
	Name string // name in the archive
	Path string // file to read
	Mode int64
}

// tarGz packs files into a gzip-compressed tar, every entry with mtime at.
func tarGz(files []archiveFile, at time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	gz.ModTime = at
	tw := tar.NewWriter(gz)
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			return nil, err
		}
		hdr := &tar.Header{Name: f.Name, Mode: f.Mode, Size: int64(len(data)), ModTime: at.UTC().Truncate(time.Second),
			Typeflag: tar.TypeReg, Format: tar.FormatUSTAR, Uname: "root", Gname: "root"}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// zipArchive packs files into a zip, every entry with mtime at.
func zipArchive(files []archiveFile, at time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			return nil, err
		}
		hdr := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: at.UTC()}
		hdr.SetMode(os.FileMode(f.Mode))
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
