package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultHTTPAddr is where `lineage mcp --http` listens by default:
// loopback only.
const DefaultHTTPAddr = "127.0.0.1:7411"

// HTTPPath is the one endpoint of the streamable HTTP transport.
const HTTPPath = "/mcp"

// HTTPOptions configure [Server.HTTPHandler].
type HTTPOptions struct {
	// Token, when not empty, is required as "Authorization: Bearer <Token>".
	Token string
}

// HTTPHandler serves the streamable HTTP transport on [HTTPPath]. A request
// whose Origin header is present and not a loopback origin gets 403 (so a
// web page cannot drive a local server); with a token configured, a
// request without the right bearer token gets 401. With Options.Stateless
// every request is served by a temporary MCP session, so the server can
// run behind a load balancer.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv },
		&mcp.StreamableHTTPOptions{Stateless: s.opts.Stateless, Logger: s.opts.Logger})
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, h)
	return guard(o.Token, mux)
}

func guard(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	host := u.Hostname()
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

// ServeHTTP serves the streamable HTTP transport on ln until ctx is
// cancelled, then shuts down gracefully.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.watch.run(ctx)
	hs := &http.Server{Handler: s.HTTPHandler(o), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	err := hs.Shutdown(shutdown)
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	return err
}
