package httpguard

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
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
		token, origin, auth string
		want                int
	}{
		{want: http.StatusTeapot},
		{origin: "http://127.0.0.1:3000", want: http.StatusTeapot},
		{origin: "https://evil.example", want: http.StatusForbidden},
		{token: "0123456789abcdef", want: http.StatusUnauthorized},
		{token: "0123456789abcdef", auth: "Bearer wrong", want: http.StatusUnauthorized},
		{token: "0123456789abcdef", auth: "bearer 0123456789abcdef", want: http.StatusTeapot},
		{token: "0123456789abcdef", auth: "Bearer 0123456789abcdef", origin: "https://evil.example", want: http.StatusForbidden},
	}
	for _, c := range cases {
		req := httptest.NewRequest("GET", "http://127.0.0.1:7410/", nil)
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

// TestHostHeader: a name rebound to this machine carries its own name in
// the Host header and is refused with 421; loopback names, the names the
// policy lists and the address the connection arrived on are answered.
func TestHostHeader(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	local := &net.TCPAddr{IP: net.ParseIP("192.168.1.5"), Port: 7410}
	cases := []struct {
		host  string
		hosts []string
		local net.Addr
		want  int
	}{
		{host: "127.0.0.1:7410", want: http.StatusTeapot},
		{host: "localhost:7410", want: http.StatusTeapot},
		{host: "LOCALHOST.", want: http.StatusTeapot},
		{host: "[::1]:7410", want: http.StatusTeapot},
		{host: "127.9.9.9", want: http.StatusTeapot},
		{host: "rebind.example:7410", want: http.StatusMisdirectedRequest},
		{host: "localhost.rebind.example", want: http.StatusMisdirectedRequest},
		{host: "", want: http.StatusMisdirectedRequest},
		{host: "box.lan:7410", hosts: AddrHosts("box.lan:7410"), want: http.StatusTeapot},
		{host: "BOX.LAN", hosts: AddrHosts("box.lan:7410"), want: http.StatusTeapot},
		{host: "other.lan", hosts: AddrHosts("box.lan:7410"), want: http.StatusMisdirectedRequest},
		{host: "192.168.1.5:7410", local: local, want: http.StatusTeapot},
		{host: "192.168.1.6:7410", local: local, want: http.StatusMisdirectedRequest},
		{host: "192.168.1.5:7410", want: http.StatusMisdirectedRequest},
		{host: "[2001:db8::1]:7410", hosts: AddrHosts("[2001:db8::1]:7410"), want: http.StatusTeapot},
	}
	for _, c := range cases {
		req := httptest.NewRequest("GET", "/", nil)
		req.Host = c.host
		if c.local != nil {
			req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, c.local))
		}
		rec := httptest.NewRecorder()
		Policy{Hosts: c.hosts}.Handler(ok).ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("%+v: status %d, want %d (%s)", c, rec.Code, c.want, rec.Body)
		}
	}
}

func TestAddrHosts(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:7410": "127.0.0.1", "Box.Lan:1": "box.lan", "[::1]:2": "::1",
		":7410": "", "0.0.0.0:1": "", "[::]:1": "", "nonsense": "",
	} {
		if got := strings.Join(AddrHosts(addr), ","); got != want {
			t.Errorf("AddrHosts(%q) = %q, want %q", addr, got, want)
		}
	}
}

// TestHostHeaderOverTCP: a real server reached by its address answers; the
// same connection with a rebound name in Host gets 421 and none of the body.
func TestHostHeaderOverTCP(t *testing.T) {
	srv := httptest.NewServer(Guard("", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "secret")
	})))
	defer srv.Close()
	get := func(host string) (int, string) {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(""); code != 200 || body != "secret" {
		t.Errorf("by address: %d %q", code, body)
	}
	if code, body := get("attacker.example:" + strings.Split(srv.URL, ":")[2]); code != http.StatusMisdirectedRequest || strings.Contains(body, "secret") {
		t.Errorf("rebound name: %d %q", code, body)
	}
}
