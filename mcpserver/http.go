package mcpserver

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/internal/httpguard"
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
	// Hosts are the names besides loopback ones (and the address a
	// request arrived on) its Host header may carry: the listen address's
	// host ([httpguard.AddrHosts]). Any other name gets 421.
	Hosts []string
}

// HTTPHandler serves the streamable HTTP transport on [HTTPPath]. A request
// whose Host header names a host the server is not bound to gets 421; one
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
	return httpguard.Policy{Token: o.Token, Hosts: o.Hosts}.Handler(mux)
}

// ServeHTTP serves the streamable HTTP transport on ln until ctx is
// cancelled, then shuts down ([httpguard.Serve]): calls in flight get 5 s
// to finish, then every connection still open (a client's event stream) is
// closed. No read or write timeout bounds a request: either would cut an
// event stream.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.watch.run(ctx)
	return httpguard.Serve(ctx, ln, s.HTTPHandler(o), httpguard.ServeOptions{Grace: 5 * time.Second})
}
