package httpguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// The bounds every face's server has, whatever it serves: a client must
// send its request's headers within ReadHeaderTimeout, in at most
// MaxHeaderBytes, and a connection idle between requests is closed after
// IdleTimeout.
const (
	ReadHeaderTimeout = 10 * time.Second
	IdleTimeout       = 2 * time.Minute
	MaxHeaderBytes    = 64 << 10
)

// DefaultGrace is how long requests in flight get to finish at shutdown
// when [ServeOptions] gives no Grace.
const DefaultGrace = 3 * time.Second

// ServeOptions are what one face sets of the serve loop.
type ServeOptions struct {
	// ReadTimeout and WriteTimeout, when set, bound reading one whole
	// request and writing its answer. A face that streams answers (MCP's
	// server-sent events) leaves both 0: either would cut a stream, the
	// read deadline by cancelling the request's context.
	ReadTimeout, WriteTimeout time.Duration
	// Grace is how long requests in flight get to finish once ctx is
	// cancelled (default [DefaultGrace]); connections still open after it
	// are closed.
	Grace time.Duration
}

// Serve serves h on ln until ctx is cancelled, then shuts down: no new
// connection is accepted, requests in flight get o.Grace to finish, and
// every connection still open after that (a stream, a client that never
// sent its request) is closed. It returns nil after that shutdown, else the
// error that stopped the server (ln failing). h is served as given: put it
// behind [Guard] first.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, o ServeOptions) error {
	hs := newServer(h, o)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	grace := o.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	shutdown, stop := context.WithTimeout(context.Background(), grace)
	defer stop()
	if err := hs.Shutdown(shutdown); errors.Is(err, context.DeadlineExceeded) {
		hs.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newServer is the http.Server Serve runs: the shared bounds and the
// face's own timeouts.
func newServer(h http.Handler, o ServeOptions) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleTimeout,
		MaxHeaderBytes: MaxHeaderBytes, ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout}
}
