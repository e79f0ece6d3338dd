package hooks

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
)

// procArgs reads a kern.procargs2 buffer: argc (4 bytes), the executable
// path, NUL padding, then argc NUL-terminated arguments. It returns the
// executable and the absolute ones among the first two arguments after
// argv[0].
func procArgs(buf []byte) []string {
	if len(buf) < 4 {
		return nil
	}
	argc := int(binary.LittleEndian.Uint32(buf))
	rest := buf[4:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return nil
	}
	out := []string{string(rest[:i])}
	rest = bytes.TrimLeft(rest[i:], "\x00")
	for n := 0; n < argc && n < 3 && len(rest) > 0; n++ {
		j := bytes.IndexByte(rest, 0)
		if j < 0 {
			j = len(rest)
		}
		if a := string(rest[:j]); n > 0 && filepath.IsAbs(a) {
			out = append(out, a)
		}
		rest = rest[min(j+1, len(rest)):]
	}
	return out
}
