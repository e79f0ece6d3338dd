package hooks

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestLookPathTriesPathext: on Windows a program is found as the shell
// finds it, by its name plus an ending from %PATHEXT% (no executable bit
// there); elsewhere by its name, executable. hook status said "program
// lineage not found" on Windows for an installed lineage.exe.
func TestLookPathTriesPathext(t *testing.T) {
	dir := t.TempDir()
	name := "tool"
	if runtime.GOOS == "windows" {
		name = "tool.exe"
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := Env{Lookup: func(k string) (string, bool) {
		switch k {
		case "PATH":
			return dir, true
		case "PATHEXT":
			return ".COM;.EXE;.BAT;.CMD", true
		}
		return "", false
	}}
	if got, want := env.lookPath("tool"), filepath.Join(dir, name); got != want {
		t.Errorf("lookPath(tool) = %q, want %q", got, want)
	}
	if got := env.lookPath("absent"); got != "" {
		t.Errorf("lookPath(absent) = %q, want none", got)
	}
	if runtime.GOOS == "windows" {
		if got, want := env.lookPath("tool.EXE"), filepath.Join(dir, "tool.EXE"); got != want {
			t.Errorf("a name with its ending: %q, want %q", got, want)
		}
		return
	}
	if err := os.Chmod(filepath.Join(dir, name), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := env.lookPath("tool"); got != "" {
		t.Errorf("a file that is not executable was found: %q", got)
	}
}
