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
	exe, argv := procArgsSplit(buf)
	if exe == "" {
		return nil
	}
	out := []string{exe}
	for _, a := range argv[min(1, len(argv)):min(3, len(argv))] {
		if filepath.IsAbs(a) {
			out = append(out, a)
		}
	}
	return out
}

// procArgv is the argv of a kern.procargs2 buffer (nil when it is not
// one).
func procArgv(buf []byte) []string {
	_, argv := procArgsSplit(buf)
	return argv
}

// procArgsSplit reads a kern.procargs2 buffer into the executable path
// and argv ("" and nil when it is not one).
func procArgsSplit(buf []byte) (exe string, argv []string) {
	if len(buf) < 4 {
		return "", nil
	}
	argc := int(binary.LittleEndian.Uint32(buf))
	rest := buf[4:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return "", nil
	}
	exe = string(rest[:i])
	rest = bytes.TrimLeft(rest[i:], "\x00")
	for n := 0; n < argc && len(rest) > 0; n++ {
		j := bytes.IndexByte(rest, 0)
		if j < 0 {
			j = len(rest)
		}
		argv = append(argv, string(rest[:j]))
		rest = rest[min(j+1, len(rest)):]
	}
	return exe, argv
}
