package fsx

import (
	"net/url"
	"strings"
	"testing"
)

func TestFromFileURLPerOS(t *testing.T) {
	tests := []struct {
		rules, url string
		want       string // "" means refused
	}{
		{"unix", "file:///home/me/proj", "/home/me/proj"},
		{"unix", "file://localhost/home/me/../you", "/home/you"},
		{"unix", "file:///tmp/with%20space", "/tmp/with space"},
		{"unix", "file://server/share", ""},
		{"unix", "file:relative/path", ""},
		{"unix", "http:///home/me", ""},
		{"unix", "file:///C:/Users/me", "/C:/Users/me"},
		{"darwin", "FILE:///Users/Me", "/Users/Me"},
		{"windows", "file:///C:/Users/Me/proj", `C:\Users\Me\proj`},
		{"windows", "file:///c%3A/Users", `c:\Users`},
		{"windows", "file://server/share/dir", `\\server\share\dir`},
		{"windows", "file://localhost/D:/x", `D:\x`},
		{"windows", "file:///home/me", ""}, // no drive: relative to the current one
		{"windows", "file:///C:", ""},      // drive-relative
		{"windows", "file:///C:/a%00b", ""},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := rulesByName[tt.rules].FromFileURL(u)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s: FromFileURL(%s) = %q, %v; want %q", tt.rules, tt.url, got, ok, tt.want)
		}
	}
}

// FuzzFromFileURL: a client's root URI, whatever it holds, becomes either
// nothing or a clean absolute path under each OS's rules.
func FuzzFromFileURL(f *testing.F) {
	f.Add("file:///home/me")
	f.Add("file:///C:/Users/Me")
	f.Fuzz(func(t *testing.T, s string) {
		u, err := url.Parse(s)
		if err != nil {
			return
		}
		for _, r := range rulesByName {
			p, ok := r.FromFileURL(u)
			if !ok {
				continue
			}
			if !r.IsAbs(p) || r.Clean(p) != p {
				t.Errorf("%s: FromFileURL(%q) = %q: not clean and absolute", r.OS, s, p)
			}
			if strings.ContainsRune(p, 0) {
				t.Errorf("%s: FromFileURL(%q) = %q holds a NUL", r.OS, s, p)
			}
		}
	})
}
