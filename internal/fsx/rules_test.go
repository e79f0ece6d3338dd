package fsx

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var rulesByName = map[string]Rules{"unix": Unix, "darwin": Darwin, "windows": Windows}

func TestRulesFor(t *testing.T) {
	for goos, want := range map[string]Rules{"windows": Windows, "darwin": Darwin, "ios": Darwin, "linux": Unix} {
		if got := RulesFor(goos); got != want {
			t.Errorf("RulesFor(%q) = %+v, want %+v", goos, got, want)
		}
	}
	if got := RulesFor("freebsd"); got.OS != "freebsd" || got.FoldCase || got.Volumes || got.Separator != '/' {
		t.Errorf("RulesFor(freebsd) = %+v, want Unix rules", got)
	}
	if Host.OS != runtime.GOOS {
		t.Errorf("Host.OS = %q on %s", Host.OS, runtime.GOOS)
	}
}

func TestContainsPerOS(t *testing.T) {
	tests := []struct {
		rules      string
		root, path string
		want       bool
	}{
		{"unix", "/a", "/a", true},
		{"unix", "/a", "/a/b", true},
		{"unix", "/a/", "/a/b/c", true},
		{"unix", "/a/libs/x", "/a/libs/xy", false},
		{"unix", "/a/libs/x", "/a/libs", false},
		{"unix", "/a", "/b", false},
		{"unix", "/a", "/a/../b", false},
		{"unix", "/", "/anything", true},
		{"unix", "/a/b", "/a/b/../b/c", true},
		{"unix", "/A", "/a/b", false},
		{"unix", `/a`, `/a\b`, false}, // a backslash is a name character on Unix
		{"unix", "/a", "a/b", false},
		{"unix", "a", "a/b", true},
		{"unix", ".", "a", true},
		{"unix", ".", "../a", false},
		{"unix", "..", "../..", false},
		{"unix", "..", "../x", true},
		{"darwin", "/Users/Me/Proj", "/users/me/proj/src", true},
		{"darwin", "/Users/me", "/Users/mesa", false},
		{"darwin", "/tmp/ÉTÉ", "/tmp/été/x", true},
		{"darwin", "/a", "/A/../b", false},
		{"windows", `C:\Users\Me`, `c:\users\me\proj`, true},
		{"windows", `C:\Users\Me`, `C:/Users/Me/proj`, true},
		{"windows", `C:\a`, `D:\a`, false},
		{"windows", `C:\a`, `C:\a\..\..\D:\a`, false},
		{"windows", `C:\`, `C:\anything\deep`, true},
		{"windows", `C:\`, `D:\x`, false},
		{"windows", `C:\a\libs\x`, `C:\a\libs\xy`, false},
		{"windows", `C:\a`, `C:a\b`, false}, // drive-relative is not inside an absolute root
		{"windows", `C:\a`, `\a\b`, false},  // volume-relative neither
		{"windows", `\a`, `C:\a\b`, false},  // nor the other way round
		{"windows", `C:\a`, `C:\a\..\a\b`, true},
		{"windows", `\\srv\share`, `\\SRV\Share\dir\f`, true},
		{"windows", `\\srv\share\dir`, `\\srv\other\dir`, false},
		{"windows", `\\srv\share`, `C:\share`, false},
		{"windows", `\\srv\share\a`, `\\srv\share\a\..\..\x`, false},
		{"windows", `\\?\C:\a`, `\\?\c:\A\b`, true},
		{"windows", `\\.\UNC\srv\share`, `\\.\unc\SRV\share\x`, true},
		{"windows", `\\?\UNC\srv\share`, `\\?\unc\SRV\share\x`, true},
		{"windows", `\\?\C:\a`, `C:\a\b`, false}, // a different spelling of the volume: not compared
		// Unicode normalization: macOS compares names in NFC, so an NFD
		// spelling (as HFS+ stored it) is the same directory; Linux and
		// Windows compare the bytes (after case folding on Windows).
		{"darwin", "/Users/ana/Caf\u00e9", "/Users/ana/Cafe\u0301/x", true},
		{"darwin", "/Users/ana/Cafe\u0301", "/users/ANA/CAF\u00c9/x", true},
		{"darwin", "/Users/ana/Caf\u00e9", "/Users/ana/Cafe/x", false},
		{"unix", "/home/ana/Caf\u00e9", "/home/ana/Cafe\u0301/x", false},
		{"windows", "C:\\Caf\u00e9", "C:\\Cafe\u0301\\x", false},
	}
	for _, tt := range tests {
		r := rulesByName[tt.rules]
		if got := r.Contains(tt.root, tt.path); got != tt.want {
			t.Errorf("%s: Contains(%q, %q) = %v, want %v", tt.rules, tt.root, tt.path, got, tt.want)
		}
	}
}

func TestCleanPerOS(t *testing.T) {
	tests := []struct {
		rules, in, want string
	}{
		{"unix", "/a//b/./c/..", "/a/b"},
		{"unix", "", "."},
		{"unix", `a\..\b`, `a\..\b`},
		{"windows", `C:/a//b/./c/..`, `C:\a\b`},
		{"windows", `C:`, `C:.`},
		{"windows", `C:..\x`, `C:..\x`},
		{"windows", `C:\..\x`, `C:\x`},
		{"windows", `c:\`, `c:\`},
		{"windows", `//srv/share/x/../y`, `\\srv\share\y`},
		{"windows", `\\srv\share`, `\\srv\share`},
		{"windows", `\\srv\share\..`, `\\srv\share\`},
		{"windows", `\\?\C:\a\..\b`, `\\?\C:\b`},
		{"windows", `a\..\c:x`, `.\c:x`},
		{"windows", `\a\b\..`, `\a`},
		{"windows", ``, `.`},
	}
	for _, tt := range tests {
		if got := rulesByName[tt.rules].Clean(tt.in); got != tt.want {
			t.Errorf("%s: Clean(%q) = %q, want %q", tt.rules, tt.in, got, tt.want)
		}
	}
}

func TestVolumeAbsDirPerOS(t *testing.T) {
	tests := []struct {
		rules, in string
		vol       string
		abs       bool
		dir       string
		ancestors []string
	}{
		{"unix", "/a/b", "", true, "/a", []string{"/", "/a", "/a/b"}},
		{"unix", "a/b", "", false, "a", []string{".", "a", "a/b"}},
		{"unix", "C:/a", "", false, "C:", []string{".", "C:", "C:/a"}},
		{"windows", `C:\a\b`, "C:", true, `C:\a`, []string{`C:\`, `C:\a`, `C:\a\b`}},
		{"windows", `C:a`, "C:", false, `C:.`, []string{`C:.`, `C:a`}},
		{"windows", `\a`, "", false, `\`, []string{`\`, `\a`}},
		{"windows", `\\srv\share\a\b`, `\\srv\share`, true, `\\srv\share\a`,
			[]string{`\\srv\share\`, `\\srv\share\a`, `\\srv\share\a\b`}},
		{"windows", `\\srv\share`, `\\srv\share`, true, `\\srv\share`, []string{`\\srv\share`}},
		// As path/filepath reads them: host and share are the volume after
		// `\\.\UNC`; after `\\?\UNC` the volume is the device "UNC" alone.
		{"windows", `\\.\UNC\srv\share\a`, `\\.\UNC\srv\share`, true, `\\.\UNC\srv\share\`,
			[]string{`\\.\UNC\srv\share\`, `\\.\UNC\srv\share\a`}},
		{"windows", `\\?\UNC\srv\share\a`, `\\?\UNC`, true, `\\?\UNC\srv\share`,
			[]string{`\\?\UNC\`, `\\?\UNC\srv`, `\\?\UNC\srv\share`, `\\?\UNC\srv\share\a`}},
		{"windows", `\\.\C:\a`, `\\.\C:`, true, `\\.\C:\`, []string{`\\.\C:\`, `\\.\C:\a`}},
	}
	for _, tt := range tests {
		r := rulesByName[tt.rules]
		if got := r.VolumeName(tt.in); got != tt.vol {
			t.Errorf("%s: VolumeName(%q) = %q, want %q", tt.rules, tt.in, got, tt.vol)
		}
		if got := r.IsAbs(tt.in); got != tt.abs {
			t.Errorf("%s: IsAbs(%q) = %v, want %v", tt.rules, tt.in, got, tt.abs)
		}
		if got := r.Dir(tt.in); got != tt.dir {
			t.Errorf("%s: Dir(%q) = %q, want %q", tt.rules, tt.in, got, tt.dir)
		}
		if diff := cmp.Diff(tt.ancestors, r.Ancestors(tt.in)); diff != "" {
			t.Errorf("%s: Ancestors(%q) (-want +got):\n%s", tt.rules, tt.in, diff)
		}
	}
}

func TestAbsPerOS(t *testing.T) {
	tests := []struct {
		rules, base, p, want string
	}{
		{"unix", "/w/x", "../y/./z/", "/w/y/z"},
		{"unix", "/w", "/abs//p/", "/abs/p"},
		{"unix", "/w", "", "/w"},
		{"unix", "", "a/..", "."},
		{"darwin", "/Users/me", "proj", "/Users/me/proj"},
		{"windows", `C:\w\x`, `..\y\.\z\`, `C:\w\y\z`},
		{"windows", `C:\w`, `D:\p`, `D:\p`},
		{"windows", `C:\w`, `\top`, `C:\top`},
		{"windows", `\\srv\share\w`, `\top`, `\\srv\share\top`},
		{"windows", `C:\w`, `c:sub`, `C:\w\sub`},
		{"windows", `C:\w`, `D:sub`, `D:\sub`},
		{"windows", `C:\w`, `a/b`, `C:\w\a\b`},
		{"windows", `C:\w`, `\\srv\share\x`, `\\srv\share\x`},
	}
	for _, tt := range tests {
		if got := rulesByName[tt.rules].Abs(tt.base, tt.p); got != tt.want {
			t.Errorf("%s: Abs(%q, %q) = %q, want %q", tt.rules, tt.base, tt.p, got, tt.want)
		}
	}
}

func TestEqualPerOS(t *testing.T) {
	tests := []struct {
		rules, a, b string
		want        bool
	}{
		{"unix", "/a/B", "/a/b", false},
		{"unix", "/a/b/", "/a/./b", true},
		{"darwin", "/a/B", "/A/b/", true},
		{"windows", `C:\A\b`, `c:/a/B`, true},
		{"windows", `C:\a`, `D:\a`, false},
		{"darwin", "/a/Cafe\u0301", "/A/caf\u00e9/", true},
		{"unix", "/a/Cafe\u0301", "/a/Caf\u00e9", false},
	}
	for _, tt := range tests {
		if got := rulesByName[tt.rules].Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: Equal(%q, %q) = %v, want %v", tt.rules, tt.a, tt.b, got, tt.want)
		}
	}
}

func TestBetweenPerOS(t *testing.T) {
	tests := []struct {
		rules, root, dir string
		want             []string
	}{
		{"unix", "/", "/a/b", []string{"/", "/a", "/a/b"}},
		{"unix", "/a", "/a", []string{"/a"}},
		{"unix", "/a", "/a/b/c", []string{"/a", "/a/b", "/a/b/c"}},
		{"unix", "/a", "/ab/c", nil},
		{"unix", "/a/b", "/a", nil},
		{"darwin", "/Proj", "/proj/src", []string{"/Proj", "/proj/src"}},
		{"windows", `C:\`, `C:\a\b`, []string{`C:\`, `C:\a`, `C:\a\b`}},
		{"windows", `C:\Proj`, `c:\proj\src\x`, []string{`C:\Proj`, `c:\proj\src`, `c:\proj\src\x`}},
		{"windows", `C:\a`, `D:\a\b`, nil},
		{"windows", `\\srv\share\`, `\\srv\share\a`, []string{`\\srv\share\`, `\\srv\share\a`}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, rulesByName[tt.rules].Between(tt.root, tt.dir)); diff != "" {
			t.Errorf("%s: Between(%q, %q) (-want +got):\n%s", tt.rules, tt.root, tt.dir, diff)
		}
	}
}

// hostPaths are spellings filepath must agree with Host on, whatever the host.
var hostPaths = []string{
	"", ".", "..", "/", "//", "/a/b/", "a//b/../c", "../../x", "/../a", "a/./b/.",
	`C:`, `C:\`, `C:\a\..\b`, `c:a\b`, `\a\b`, `\\srv\share`, `\\srv\share\x\..`,
	`\\?\C:\a`, `\\.\pipe\x`, `a\..\c:x`, `C:/mixed\seps/`,
}

// TestHostMatchesFilepath pins Host to the standard library on the OS the
// test runs on: Unix rules on Linux, Darwin on macOS, Windows on Windows.
func TestHostMatchesFilepath(t *testing.T) {
	for _, p := range hostPaths {
		checkHostMatchesFilepath(t, p)
	}
}

func FuzzHostMatchesFilepath(f *testing.F) {
	for _, p := range hostPaths {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		checkHostMatchesFilepath(t, p)
		for _, r := range rulesByName {
			c := r.Clean(p)
			if again := r.Clean(c); again != c {
				t.Errorf("%s: Clean(%q) = %q, not a fixed point: %q", r.OS, p, c, again)
			}
			if !r.Contains(p, p) {
				t.Errorf("%s: Contains(%q, itself) = false", r.OS, p)
			}
			child := r.Abs(c, "child")
			if !r.IsAbs(c) || r.VolumeName(child) != r.VolumeName(c) {
				continue // a malformed volume ("\\\\.") swallows the child
			}
			if !r.Contains(c, child) {
				t.Errorf("%s: Contains(%q, %q) = false", r.OS, c, child)
			}
			if r.Contains(child, c) {
				t.Errorf("%s: Contains(%q, %q) = true: a parent inside its child", r.OS, child, c)
			}
		}
	})
}

func checkHostMatchesFilepath(t *testing.T, p string) {
	t.Helper()
	if got, want := Host.Clean(p), filepath.Clean(p); got != want {
		t.Errorf("Host.Clean(%q) = %q, filepath.Clean = %q", p, got, want)
	}
	if got, want := Host.IsAbs(p), filepath.IsAbs(p); got != want {
		t.Errorf("Host.IsAbs(%q) = %v, filepath.IsAbs = %v", p, got, want)
	}
	if got, want := Host.VolumeName(p), filepath.VolumeName(p); got != want {
		t.Errorf("Host.VolumeName(%q) = %q, filepath.VolumeName = %q", p, got, want)
	}
	if got, want := Host.Dir(p), filepath.Dir(p); got != want {
		t.Errorf("Host.Dir(%q) = %q, filepath.Dir = %q", p, got, want)
	}
}
