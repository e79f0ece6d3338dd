package fsx

import (
	"net/url"
	"strings"
)

// FromFileURL returns the absolute path a file: URL names (RFC 8089), or
// false when it names none under these rules. On Windows "file:///C:/x" is
// `C:\x` and "file://host/share/x" the UNC path `\\host\share\x`; elsewhere
// the host must be empty or "localhost".
func (r Rules) FromFileURL(u *url.URL) (string, bool) {
	if u == nil || !strings.EqualFold(u.Scheme, "file") || u.Opaque != "" {
		return "", false
	}
	p := u.Path
	local := u.Host == "" || strings.EqualFold(u.Host, "localhost")
	switch {
	case !local && r.Volumes:
		p = `\\` + u.Host + p
	case !local:
		return "", false
	case r.Volumes && len(p) >= 3 && p[0] == '/' && p[2] == ':' && isLetter(p[1]):
		p = p[1:] // "/C:/x" is the drive path "C:/x"
	}
	if strings.ContainsRune(p, 0) || !r.IsAbs(p) {
		return "", false
	}
	return r.Clean(p), true
}
