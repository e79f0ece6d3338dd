package fsx

import (
	"net/url"
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
