package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// binDir holds the lineage binary the tests of this package build once and
// run as a user would: a real process, its real start-up included.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lineage-bin-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildErr  error
	buildOut  []byte
)

// lineageBinary builds ./cmd/lineage (a plain go build, as the README's
// set-up does) into binDir and returns its path.
func lineageBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the lineage binary; skipped with -short")
	}
	if _, err := exec.LookPath(goTool()); err != nil {
		t.Skipf("builds lineage with the go command, and there is none here (%v): the Windows run under Wine tests the cross-built binary instead", err)
	}
	bin := filepath.Join(binDir, "lineage")
	buildOnce.Do(func() {
		cmd := exec.Command(goTool(), "build", "-o", bin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build ./cmd/lineage: %v\n%s", buildErr, buildOut)
	}
	return bin
}

// goTool finds the go command that runs these tests.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}
