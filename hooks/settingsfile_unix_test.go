//go:build unix

package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A settings file that is a symbolic link (a dotfile manager's) is
// written through to its target; the target keeps its mode and owner.
func TestSymlinkedSettingsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "claude.json")
	link := filepath.Join(dir, "home", ".claude", "settings.json")
	for _, d := range []string{filepath.Dir(target), filepath.Dir(link)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(target, []byte("{\"model\": \"opus\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../dotfiles/claude.json", link); err != nil {
		t.Skip("no symlinks:", err)
	}
	uid := os.Getuid()
	if uid == 0 {
		// Root can show that the owner is kept: give the file to another.
		if err := os.Chown(target, 4321, 4321); err != nil {
			t.Fatal(err)
		}
	}
	res, err := EditSettingsFile(context.Background(), link, filepath.Join(dir, "locks"), true, func(before []byte, _ bool) ([]byte, error) {
		return Claude.Install(before, "lineage", Flags{})
	})
	if err != nil || !res.Written {
		t.Fatalf("%+v, %v", res, err)
	}
	if real, _ := filepath.EvalSymlinks(target); res.Target != real {
		t.Errorf("target %s, want %s", res.Target, real)
	}
	li, err := os.Lstat(link)
	if err != nil || li.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", li.Mode(), err)
	}
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if st := fi.Sys().(*syscall.Stat_t); uid == 0 && (st.Uid != 4321 || st.Gid != 4321) {
		t.Errorf("owner %d:%d, want 4321:4321", st.Uid, st.Gid)
	}
	if data, _ := os.ReadFile(target); !strings.Contains(string(data), `"model": "opus"`) || !strings.Contains(string(data), "lineage hook claude") {
		t.Errorf("target content: %s", data)
	}
	// A dangling link is refused, and nothing is created.
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	if _, err := EditSettingsFile(context.Background(), link, filepath.Join(dir, "locks"), true, func(before []byte, _ bool) ([]byte, error) {
		return Claude.Install(before, "lineage", Flags{})
	}); err == nil || !strings.Contains(err.Error(), "symbolic link to a file that does not exist") {
		t.Errorf("dangling link: %v", err)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("a dangling link's target was created")
	}
}

// A Copilot CLI config.json that is a FIFO is no trust list: the check
// says so and returns, never waiting for a writer.
func TestCopilotTrustRefusesAFIFOConfig(t *testing.T) {
	home := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(home, "config.json"), 0o600); err != nil {
		t.Skip("no FIFOs:", err)
	}
	env := Env{Lookup: func(k string) (string, bool) {
		if k == "COPILOT_HOME" {
			return home, true
		}
		return "", false
	}}
	trusted, why := copilotFolderTrusted(env, t.TempDir())
	if trusted || !strings.HasPrefix(why, "no readable ") {
		t.Fatalf("trusted %v: %s", trusted, why)
	}
}
