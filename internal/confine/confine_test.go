package confine

import (
	"errors"
	"github.com/agentlineage/lineage/internal/platformtest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "root")
	out := filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(root, "sub"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, "secret"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	platformtest.Symlink(t, out, filepath.Join(root, "link"))
	platformtest.Symlink(t, filepath.Join(out, "secret"), filepath.Join(root, "file"))
	// A root reached through a symlink still contains its real children.
	platformtest.Symlink(t, root, filepath.Join(base, "alias"))
	roots, err := New(filepath.Join(base, "alias"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path    string
		inside  bool
		leadsTo string
	}{
		{root, true, ""},
		{filepath.Join(root, "sub"), true, ""},
		{filepath.Join(root, "sub", "new", "file"), true, ""},
		{filepath.Join(root, "sub", "..", "sub"), true, ""},
		{filepath.Join(base, "alias", "sub"), true, ""},
		{out, false, ""},
		{root + "/../out", false, ""},
		{filepath.Join(root, "link"), false, out},
		{filepath.Join(root, "link", "new"), false, filepath.Join(out, "new")},
		{filepath.Join(root, "file"), false, filepath.Join(out, "secret")},
		// ".." after a symlink goes where the OS takes it: root/link/.. is
		// base, not root.
		{root + "/link/../out", false, out},
		{root + "/link/../root/sub", true, ""},
		{root + "x", false, ""},
	}
	for _, tt := range tests {
		err := roots.Check(tt.path)
		if (err == nil) != tt.inside {
			t.Errorf("Check(%s) = %v, want inside=%v", tt.path, err, tt.inside)
			continue
		}
		if err == nil {
			continue
		}
		var oe *OutsideError
		if !errors.As(err, &oe) || !errors.Is(err, ErrOutside) || oe.Path != tt.path ||
			!strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), "allowed roots: "+filepath.Join(base, "alias")) {
			t.Errorf("Check(%s): error %v must name the path and the roots", tt.path, err)
		}
		if oe.Real != tt.leadsTo {
			t.Errorf("Check(%s): leads to %q, want %q", tt.path, oe.Real, tt.leadsTo)
		}
	}
	if _, err := New("relative"); err == nil {
		t.Error("a relative root must be refused")
	}
	if err := (Roots{}).Check(root); err == nil || !strings.Contains(err.Error(), "allowed roots: none") {
		t.Errorf("no roots: %v", err)
	}
}

// Only gives what New gives for one of the roots (its real location
// included: a root reached through a symlink), and nothing for another
// directory.
func TestOnly(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root, other := filepath.Join(base, "root"), filepath.Join(base, "other")
	for _, d := range []string{root, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	alias := filepath.Join(base, "alias")
	check := func(roots Roots, dirs ...string) {
		t.Helper()
		for _, dir := range dirs {
			got, ok := roots.Only(dir)
			want, _ := New(dir)
			if !ok || !slices.Equal(got.dirs, want.dirs) || !slices.Equal(got.real, want.real) {
				t.Errorf("Only(%s) = %+v, %v; New gives %+v", dir, got, ok, want)
			}
		}
	}
	roots, err := New(other, alias)
	if err != nil {
		t.Fatal(err)
	}
	check(roots, other, other+string(filepath.Separator))
	if got, ok := roots.Only(root); ok {
		t.Errorf("Only(%s), not a root = %+v", root, got)
	}
	// A root that is a symlink: its real location is the target's.
	platformtest.Symlink(t, root, alias)
	if roots, err = New(other, alias); err != nil {
		t.Fatal(err)
	}
	check(roots, alias)
	if got, ok := roots.Only(root); ok {
		t.Errorf("Only(%s), a root's real location but not a root = %+v", root, got)
	}
}
