package httpguard

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// A stream that never ends does not hold the shutdown: after the grace
// period its connection is closed (its request's context ends) and Serve
// returns nil.
func TestServeClosesAStreamAfterTheGrace(t *testing.T) {
	ln := listen(t)
	started, ended := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("event\n"))
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
		close(ended)
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, ServeOptions{Grace: 50 * time.Millisecond}) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-started
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after shutdown = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its grace period")
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream's request context did not end")
	}
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("the stream ended cleanly; want its connection closed")
	}
}

// A request in flight when the shutdown starts finishes within the grace.
func TestServeLetsARequestFinish(t *testing.T) {
	ln := listen(t)
	release := make(chan struct{})
	inFlight := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(inFlight)
		<-release
		w.Write([]byte("done"))
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, ServeOptions{Grace: time.Minute}) }()
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	<-inFlight
	cancel()
	close(release)
	if g := <-got; g != "done" {
		t.Errorf("the request in flight got %q, want done", g)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve = %v", err)
	}
}

// A listener that fails is Serve's error.
func TestServeReturnsAListenerError(t *testing.T) {
	ln := listen(t)
	ln.Close()
	err := Serve(context.Background(), ln, http.NotFoundHandler(), ServeOptions{})
	if err == nil || errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve on a closed listener = %v, want its error", err)
	}
}

// Every face's server gets the shared bounds; the request timeouts only
// where a face sets them.
func TestServerBounds(t *testing.T) {
	for _, o := range []ServeOptions{{}, {ReadTimeout: 30 * time.Second, WriteTimeout: 2 * time.Minute}} {
		hs := newServer(http.NotFoundHandler(), o)
		if hs.ReadHeaderTimeout != 10*time.Second || hs.IdleTimeout != 2*time.Minute || hs.MaxHeaderBytes != 64<<10 {
			t.Errorf("%+v: shared bounds %v, %v, %d", o, hs.ReadHeaderTimeout, hs.IdleTimeout, hs.MaxHeaderBytes)
		}
		if hs.ReadTimeout != o.ReadTimeout || hs.WriteTimeout != o.WriteTimeout {
			t.Errorf("%+v: request timeouts %v, %v", o, hs.ReadTimeout, hs.WriteTimeout)
		}
	}
}
