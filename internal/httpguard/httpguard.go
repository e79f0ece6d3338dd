// Package httpguard is how every local HTTP face of lineage (the MCP
// server's HTTP transport, the read-only web page of `lineage serve`) is
// served: [Guard] or a [Policy] in front of its handler, [Serve] around it.
// In front: a request whose Host header names a host the server is not
// bound to gets 421 (a page of another origin whose name was rebound to
// this machine's address cannot read the answers), a request from a web
// page of another origin gets 403, and with a token configured a request
// without "Authorization: Bearer <token>" gets 401. Around: the one serve
// loop, with the bounds every face shares and one shutdown. LoopbackAddr
// tells whether a listen address can only be reached from this machine,
// which is when a server may run without a token.
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

// Guard is [Policy.Handler] with only a token: the Host header must name a
// loopback host or the address the connection arrived on.
func Guard(token string, next http.Handler) http.Handler {
	return Policy{Token: token}.Handler(next)
}

// Policy is what [Policy.Handler] enforces.
type Policy struct {
	// Token, when not empty, is required as "Authorization: Bearer <Token>".
	Token string
	// Hosts are the names besides the loopback ones (localhost,
	// 127.0.0.0/8, ::1) and the IP address the connection arrived on that
	// a request's Host header may carry: the host of the listen address
	// (see [AddrHosts]).
	Hosts []string
}

// Handler wraps next: a request whose Host header is not one of the
// policy's hosts gets 421 Misdirected Request (DNS rebinding: a page whose
// name now resolves to this machine sends its own name, and same-origin
// requests carry no Origin header); a request whose Origin header is
// present and not a loopback origin gets 403 (so a web page elsewhere
// cannot drive a local server); when the token is not empty, a request
// without the right bearer token gets 401.
func (p Policy) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !p.hostAllowed(r) {
			http.Error(w, fmt.Sprintf("misdirected request: host %q is not a name this server is bound to (localhost, a loopback address, the address it listens on%s)", r.Host, p.hostList()), http.StatusMisdirectedRequest)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !LoopbackOrigin(origin) {
			http.Error(w, "forbidden: origin "+origin+" is not a loopback origin", http.StatusForbidden)
			return
		}
		if p.Token != "" && !bearerMatches(r.Header.Get("Authorization"), p.Token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="lineage"`)
			http.Error(w, "unauthorized: missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether r's Host header names this server: a
// loopback name or address, one of p.Hosts, or the IP address the
// connection arrived on (an address cannot be rebound; a name can).
func (p Policy) hostAllowed(r *http.Request) bool {
	host := hostName(r.Host)
	if host == "" {
		return false
	}
	if loopbackHost(host) {
		return true
	}
	for _, h := range p.Hosts {
		if strings.EqualFold(hostName(h), host) {
			return true
		}
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return false
	}
	la, _, err := net.SplitHostPort(local.String())
	if err != nil {
		return false
	}
	lip := net.ParseIP(la)
	return lip != nil && lip.Equal(ip)
}

func (p Policy) hostList() string {
	var b strings.Builder
	for _, h := range p.Hosts {
		b.WriteString(", ")
		b.WriteString(h)
	}
	return b.String()
}

// hostName is the host of a Host header or address: the port, the
// brackets of an IPv6 address and a trailing dot dropped, lower-cased.
func hostName(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.ToLower(strings.TrimSuffix(h, "."))
}

// AddrHosts is what [Policy.Hosts] holds for a server told to listen on
// addr (host:port): its host, unless that is empty or an unspecified
// address (0.0.0.0, ::), which bind every interface: such a server
// answers to loopback names and to the address a request arrived on.
func AddrHosts(addr string) []string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return nil
	}
	return []string{hostName(host)}
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
