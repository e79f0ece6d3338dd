package httpguard

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestLoopbackOrigin(t *testing.T) {
	for origin, want := range map[string]bool{
		"http://localhost:1":     true,
		"https://LOCALHOST":      true,
		"http://127.0.0.2":       true,
		"http://[::1]":           true,
		"http://10.0.0.1":        false,
		"ws://localhost":         false,
		"http://":                false,
		"localhost":              false,
		"http://localhost@x.org": false,
		"http://x@localhost":     false,
	} {
		if got := LoopbackOrigin(origin); got != want {
			t.Errorf("LoopbackOrigin(%q) = %v, want %v", origin, got, want)
		}
	}
}

func TestLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:7411": true, "localhost:80": true, "[::1]:1": true,
		":7411": false, "0.0.0.0:1": false, "10.1.2.3:4": false, "127.0.0.1": false,
	} {
		if got := LoopbackAddr(addr); got != want {
			t.Errorf("LoopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestGuard(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	cases := []struct {
		token, origin, auth, host string
		want                      int
	}{
		{want: http.StatusTeapot},
		{origin: "http://127.0.0.1:3000", want: http.StatusTeapot},
		{origin: "https://evil.example", want: http.StatusForbidden},
		{token: "0123456789abcdef", want: http.StatusUnauthorized},
		{token: "0123456789abcdef", auth: "Bearer wrong", want: http.StatusUnauthorized},
		{token: "0123456789abcdef", auth: "bearer 0123456789abcdef", want: http.StatusTeapot},
		{token: "0123456789abcdef", auth: "Bearer 0123456789abcdef", origin: "https://evil.example", want: http.StatusForbidden},
		// The Host a request names on a loopback address (DNS rebinding).
		{host: "localhost:7410", want: http.StatusTeapot},
		{host: "[::1]:7410", want: http.StatusTeapot},
		{host: "LOCALHOST", want: http.StatusTeapot},
		{host: "evil.example:7410", want: http.StatusForbidden},
		{host: "10.0.0.1", want: http.StatusForbidden},
		{host: "evil.example", token: "0123456789abcdef", auth: "Bearer 0123456789abcdef", want: http.StatusForbidden},
	}
	for _, c := range cases {
		req := httptest.NewRequest("GET", "/", nil)
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, net.Addr(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7410})))
		req.Host = "127.0.0.1:7410"
		if c.host != "" {
			req.Host = c.host
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		rec := httptest.NewRecorder()
		Guard(c.token, ok).ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("%+v: status %d, want %d", c, rec.Code, c.want)
		}
	}
}

// On an address other machines reach, the Host is whatever name they used.
func TestGuardHostOnANonLoopbackAddress(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	req := httptest.NewRequest("GET", "/", nil)
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, net.Addr(&net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 7410})))
	req.Host = "lineage.team.example:7410"
	rec := httptest.NewRecorder()
	Guard("", ok).ServeHTTP(rec, req)
	if rec.Code != http.StatusTeapot {
		t.Errorf("status %d, want the handler's", rec.Code)
	}
}
