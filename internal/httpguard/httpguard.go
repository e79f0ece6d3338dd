// Package httpguard is how every local HTTP face of lineage (the MCP
// server's HTTP transport, the read-only web page of `lineage serve`) is
// served: [Guard] in front of its handler and [Serve] around it. The guard
// answers 403 to a request from a web page of another origin and to one
// that reached a loopback address under another host name (DNS
// rebinding), and, with a token configured, 401 to a request without
// "Authorization: Bearer <token>". Serve is the one serve loop: the bounds
// every face shares and one shutdown. LoopbackAddr tells whether a listen
// address can only be reached from this machine, which is when a server
// may run without a token.
package httpguard

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// MinTokenBytes is the shortest bearer token a server accepts: a short
// token is guessed by anyone who can reach the port.
const MinTokenBytes = 16

// CheckToken refuses a bearer token shorter than [MinTokenBytes].
func CheckToken(token string) error {
	if len(token) < MinTokenBytes {
		return fmt.Errorf("the token is %d bytes; use at least %d (for example: openssl rand -hex 16)", len(token), MinTokenBytes)
	}
	return nil
}

// Guard wraps next: a request whose Origin header is present and not a
// loopback origin gets 403 (so a web page elsewhere cannot drive a local
// server), and so does one that arrived on a loopback address naming
// another host (a page whose name was rebound to 127.0.0.1); when token
// is not empty, a request without the right bearer token gets 401.
func Guard(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil &&
			LoopbackAddr(local.String()) && !loopbackHost(hostOf(r.Host)) {
			http.Error(w, fmt.Sprintf("forbidden: host %q is not a loopback host", r.Host), http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !LoopbackOrigin(origin) {
			http.Error(w, "forbidden: origin "+origin+" is not a loopback origin", http.StatusForbidden)
			return
		}
		if token != "" && !bearerMatches(r.Header.Get("Authorization"), token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="lineage"`)
			http.Error(w, "unauthorized: missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// LoopbackOrigin reports whether an Origin header names a loopback host
// (localhost, 127.0.0.0/8 or ::1) over http or https.
func LoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return false
	}
	return loopbackHost(u.Hostname())
}

// LoopbackAddr reports whether a listen address (host:port) can only be
// reached from this machine: a loopback IP or "localhost". An empty host
// binds every interface.
func LoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return loopbackHost(host)
}

// hostOf is the host of a Host header, without its port or brackets.
func hostOf(hostport string) string {
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		return host
	}
	return strings.Trim(hostport, "[]")
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func bearerMatches(header, token string) bool {
	const prefix = "Bearer "
	if len(header) < len(prefix) || !strings.EqualFold(header[:len(prefix)], prefix) {
		return false
	}
	got := strings.TrimSpace(header[len(prefix):])
	return subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}
