package fsx

import (
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"path"
	"runtime"
	"strings"
)

// Rules are how an operating system spells and compares paths: its
// separators, whether names differ by case, and whether paths carry a volume
// (a drive letter "C:" or a UNC share `\\host\share`). The path functions
// are methods on Rules so that the rules of every OS can be tested on any
// host; the package-level functions use [Host].
type Rules struct {
	// OS is the GOOS whose rules these are; it picks the user directories.
	OS string
	// Separator is the separator Clean writes. Windows also reads '/'.
	Separator byte
	// FoldCase compares names case-insensitively, as the default volumes of
	// macOS (APFS) and Windows (NTFS) do.
	FoldCase bool
	// Volumes enables drive letters, UNC shares and device paths (`\\?\`).
	Volumes bool
	// NormalizeUnicode compares names in Unicode normalization form C, as
	// macOS's file systems do: "Café" typed (NFC, U+00E9) and "Café" as
	// HFS+ stored it or a Finder copy spells it (NFD, e + U+0301) name one
	// file.
	NormalizeUnicode bool
}

// The rules lineage knows. Linux and the BSDs share Unix.
var (
	Unix    = Rules{OS: "linux", Separator: '/'}
	Darwin  = Rules{OS: "darwin", Separator: '/', FoldCase: true, NormalizeUnicode: true}
	Windows = Rules{OS: "windows", Separator: '\\', FoldCase: true, Volumes: true}
)

// Host are the rules of the OS this program runs on.
var Host = RulesFor(runtime.GOOS)

// RulesFor returns the rules of the OS named by a GOOS value.
func RulesFor(goos string) Rules {
	switch goos {
	case "windows":
		return Windows
	case "darwin", "ios":
		return Darwin
	}
	r := Unix
	r.OS = goos
	return r
}

// IsSeparator reports whether c separates path elements.
func (r Rules) IsSeparator(c byte) bool {
	return c == '/' || (r.Volumes && c == '\\')
}

// Equal reports whether a and b name the same path once cleaned, folding
// case where the OS does.
func (r Rules) Equal(a, b string) bool {
	return r.same(r.Clean(a), r.Clean(b))
}

func (r Rules) same(a, b string) bool {
	if r.FoldCase && strings.EqualFold(a, b) || a == b {
		return true
	}
	if !r.NormalizeUnicode || isASCII(a) && isASCII(b) {
		return false
	}
	a, b = norm.NFC.String(a), norm.NFC.String(b)
	if r.FoldCase {
		return strings.EqualFold(a, b)
	}
	return a == b
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// VolumeName returns the leading volume of p: "C:" for `C:\x`,
// `\\host\share` for `\\host\share\x`, `\\?\C:` for `\\?\C:\x`; "" where the
// OS has no volumes or p has none. Like filepath.VolumeName, slashes in it
// become the OS's separator.
func (r Rules) VolumeName(p string) string {
	return r.fromSlash(p[:r.volumeLen(p)])
}

// volumeLen is the length of p's volume, as path/filepath reads Windows
// paths (so the two never disagree; FuzzHostMatchesFilepath checks it on
// Windows): a drive "X:"; `\\.\UNC\host\share`; a device path `\\.\X`,
// `\\?\X` or `\??\X` whose volume is its first element (so `\\?\UNC\…` is the
// device "UNC": filepath keeps host and share only after `\\.\UNC`); or a
// share `\\host\share`.
func (r Rules) volumeLen(p string) int {
	if !r.Volumes || len(p) < 2 {
		return 0
	}
	switch {
	case p[1] == ':':
		return 2
	case !r.IsSeparator(p[0]):
		return 0
	case r.hasPrefixFold(p, `\\.\UNC`):
		return r.shareLen(p, len(`\\.\UNC`))
	case r.hasPrefixFold(p, `\\.`) || r.hasPrefixFold(p, `\\?`) || r.hasPrefixFold(p, `\??`):
		if len(p) == 3 {
			return 3
		}
		return 4 + r.elemLen(p[4:])
	case r.IsSeparator(p[1]):
		return r.shareLen(p, 1)
	}
	return 0
}

// hasPrefixFold reports whether p starts with prefix, ignoring case and
// taking either separator for one, and then ends or goes on with a
// separator.
func (r Rules) hasPrefixFold(p, prefix string) bool {
	if len(p) < len(prefix) || (len(p) > len(prefix) && !r.IsSeparator(p[len(prefix)])) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if r.IsSeparator(prefix[i]) {
			if !r.IsSeparator(p[i]) {
				return false
			}
		} else if p[i]|0x20 != prefix[i]|0x20 {
			return false
		}
	}
	return true
}

// shareLen is the length of a volume that ends with `\host\share` after
// p[:i] (a trailing element may be missing in a malformed path).
func (r Rules) shareLen(p string, i int) int {
	for range 2 {
		if i >= len(p) || !r.IsSeparator(p[i]) {
			return i
		}
		i++
		i += r.elemLen(p[i:])
	}
	return i
}

func (r Rules) elemLen(p string) int {
	for i := 0; i < len(p); i++ {
		if r.IsSeparator(p[i]) {
			return i
		}
	}
	return len(p)
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// isShare reports whether vol is a UNC or device volume (two leading
// separators) rather than a drive.
func (r Rules) isShare(vol string) bool {
	return len(vol) >= 2 && r.IsSeparator(vol[0]) && r.IsSeparator(vol[1])
}

// IsAbs reports whether p is absolute: rooted, and on Windows also on a
// volume ("C:x" and `\x` are relative to a drive's or the volume's
// current directory).
func (r Rules) IsAbs(p string) bool {
	n := r.volumeLen(p)
	if n > 0 && r.isShare(p[:n]) {
		return true
	}
	if r.Volumes && n == 0 {
		return false
	}
	return n < len(p) && r.IsSeparator(p[n])
}

// Clean is filepath.Clean under these rules: the shortest equivalent path,
// separators made r.Separator, "." and ".." resolved lexically.
func (r Rules) Clean(p string) string {
	if !r.Volumes {
		return path.Clean(p)
	}
	n := r.volumeLen(p)
	vol, rest := r.fromSlash(p[:n]), p[n:]
	if rest == "" {
		if r.isShare(vol) {
			return vol
		}
		return vol + "."
	}
	out := r.fromSlash(path.Clean(r.toSlash(rest)))
	// A relative path must not clean into something that reads as a drive
	// ("a\..\c:x" is not "c:x").
	if n == 0 && r.volumeLen(out) > 0 {
		out = "." + string(r.Separator) + out
	}
	return vol + out
}

func (r Rules) toSlash(p string) string {
	if r.Separator == '/' {
		return p
	}
	return strings.ReplaceAll(p, string(r.Separator), "/")
}

func (r Rules) fromSlash(p string) string {
	if r.Separator == '/' {
		return p
	}
	return strings.ReplaceAll(p, "/", string(r.Separator))
}

// Dir is filepath.Dir under these rules: p without its last element,
// cleaned; a root or volume root is its own Dir.
func (r Rules) Dir(p string) string {
	n := r.volumeLen(p)
	i := len(p) - 1
	for i >= n && !r.IsSeparator(p[i]) {
		i--
	}
	dir := r.Clean(p[n : i+1])
	if dir == "." && n > 2 {
		return r.fromSlash(p[:n])
	}
	return r.fromSlash(p[:n]) + dir
}

// Abs makes p absolute against base (not the process directory) and cleans
// it. Symlinks are not resolved: paths stay logical. On Windows `\x` lands
// on base's volume and "D:x" on drive D: (its own current directory is
// unknown here, so its root).
func (r Rules) Abs(base, p string) string {
	if r.IsAbs(p) || base == "" {
		return r.Clean(p)
	}
	sep := string(r.Separator)
	if n := r.volumeLen(p); n > 0 {
		if !r.same(p[:n], r.VolumeName(base)) {
			return r.Clean(p[:n] + sep + p[n:])
		}
		p = p[n:]
	}
	if p != "" && r.IsSeparator(p[0]) {
		return r.Clean(r.VolumeName(base) + p)
	}
	return r.Clean(base + sep + p)
}

// Ancestors returns the directories from the filesystem (or volume) root
// down to dir, both included, for a clean absolute dir.
func (r Rules) Ancestors(dir string) []string {
	dir = r.Clean(dir)
	var out []string
	for {
		out = append(out, dir)
		parent := r.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Contains reports whether path equals root or lies inside it, comparing
// whole path components the way the OS does: "/a/libs/x" does not contain
// "/a/libs/xy"; on macOS and Windows "/A" contains "/a/b"; on Windows a path
// on another drive or share is never inside. Both paths are cleaned first;
// neither is resolved through symlinks.
func (r Rules) Contains(root, path string) bool {
	_, ok := r.below(r.Clean(root), r.Clean(path))
	return ok
}

// below matches root's components against the front of path (both clean)
// and returns the rest of path.
func (r Rules) below(root, path string) (rest string, ok bool) {
	rn, pn := r.volumeLen(root), r.volumeLen(path)
	if !r.same(root[:rn], path[:pn]) {
		return "", false
	}
	// A share is always rooted: `\\host\share` is `\\host\share\`.
	share := r.isShare(root[:rn])
	root, path = root[rn:], path[pn:]
	rooted := share || root != "" && r.IsSeparator(root[0])
	if rooted != (share || path != "" && r.IsSeparator(path[0])) {
		return "", false
	}
	if root != "" && r.IsSeparator(root[0]) {
		root = root[1:]
	}
	if path != "" && r.IsSeparator(path[0]) {
		path = path[1:]
	}
	if root == "." {
		root = ""
	}
	if path == "." {
		path = ""
	}
	for root != "" {
		rc, rr := r.cut(root)
		pc, pr := r.cut(path)
		if !r.same(rc, pc) {
			return "", false
		}
		root, path = rr, pr
	}
	if first, _ := r.cut(path); first == ".." {
		return "", false
	}
	return path, true
}

// cut splits p at its first separator.
func (r Rules) cut(p string) (elem, rest string) {
	n := r.elemLen(p)
	if n == len(p) {
		return p, ""
	}
	return p[:n], p[n+1:]
}

// Between returns the directories from root down to dir, both included, or
// nil when dir is not inside root. Both must be clean; every entry after
// root is a prefix of dir, sharing its memory.
func (r Rules) Between(root, dir string) []string {
	rest, ok := r.below(root, dir)
	if !ok {
		return nil
	}
	out := make([]string, 0, strings.Count(rest, string(r.Separator))+2)
	out = append(out, root)
	if rest == "" {
		return out
	}
	for i := len(dir) - len(rest); i < len(dir); i++ {
		if r.IsSeparator(dir[i]) {
			out = append(out, dir[:i])
		}
	}
	return append(out, dir)
}

// Contains is [Rules.Contains] under the host's rules.
func Contains(root, path string) bool { return Host.Contains(root, path) }

// Equal is [Rules.Equal] under the host's rules.
func Equal(a, b string) bool { return Host.Equal(a, b) }

// Abs is [Rules.Abs] under the host's rules.
func Abs(base, p string) string { return Host.Abs(base, p) }

// Ancestors is [Rules.Ancestors] under the host's rules.
func Ancestors(dir string) []string { return Host.Ancestors(dir) }

// Between is [Rules.Between] under the host's rules.
func Between(root, dir string) []string { return Host.Between(root, dir) }
