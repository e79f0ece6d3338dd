package tractcmd_test

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/cli"
	"github.com/agentlineage/lineage/internal/cli/clienv"
)

func tractRun(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &clienv.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Dir: dir,
		LookupEnv: func(k string) (string, bool) {
			if k == "LINEAGE_NOW" {
				return "2026-01-02T03:04:05Z", true
			}
			return "", false
		}}
	code := cli.Run(context.Background(), args, env)
	return code, out.String(), errb.String()
}

// TestTractVerifyDamage: verify exits 3 and lists what it found when a row
// was changed behind the store's back.
func TestTractVerifyDamage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"tract", "init"}, {"tract", "commit", "--text", "one"}, {"tract", "commit", "--text", "two"}} {
		if code, _, stderr := tractRun(t, dir, args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, stderr)
		}
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, ".lineage", "lineage.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE commits SET message = 'forged' WHERE length(parents) = 0`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, stdout, stderr := tractRun(t, dir, "tract", "verify")
	if code != clienv.ExitFinding {
		t.Fatalf("verify exit %d, want 3; stderr %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "commit ") || !strings.Contains(stdout, ": fields hash to ") {
		t.Errorf("stdout %q", stdout)
	}
	if !strings.Contains(stderr, "lineage: verify: 1 problems in "+filepath.Join(".lineage", "lineage.db")) {
		t.Errorf("stderr %q", stderr)
	}
}

// TestTractGCProgress: on a terminal gc draws its progress on stderr and
// clears it; elsewhere it prints none.
func TestTractGCProgress(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"tract", "init"}, {"tract", "commit", "--text", "one"}} {
		if code, _, stderr := tractRun(t, dir, args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, stderr)
		}
	}
	var out, errb bytes.Buffer
	env := &clienv.Env{Stdout: &out, Stderr: &errb, Dir: dir, StdoutTerminal: true, StderrTerminal: true}
	if code := cli.Run(context.Background(), []string{"tract", "gc"}, env); code != 0 {
		t.Fatalf("gc exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "\rgc: scan 1/1") || !strings.HasSuffix(errb.String(), "\r\x1b[K") {
		t.Errorf("progress %q", errb.String())
	}
	if !strings.HasPrefix(out.String(), "removed 0 commits, 0 blobs, ") {
		t.Errorf("stdout %q", out.String())
	}
	code, _, stderr := tractRun(t, dir, "tract", "gc")
	if code != 0 || stderr != "" {
		t.Errorf("gc off a terminal printed progress: %q", stderr)
	}
}

// TestTractTagsFindExitCodes follows docs/cli.md: a malformed flag or
// argument value (tag name, tools JSON, --meta) exits 2, an unknown tag 1
// like an unknown branch, a damaged export 3 (tract_export.txtar).
func TestTractTagsFindExitCodes(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"tract", "init"}, {"tract", "commit", "--text", "one"}} {
		if code, _, stderr := tractRun(t, dir, args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"tract", "find", "--type", "bogus"}, clienv.ExitUsage},
		{[]string{"tract", "find", "--meta", "novalue"}, clienv.ExitUsage},
		{[]string{"tract", "find", "!!"}, clienv.ExitUsage},
		{[]string{"tract", "find", "-n", "-1"}, clienv.ExitUsage},
		{[]string{"tract", "tag", "--delete", "a", "b"}, clienv.ExitUsage},
		{[]string{"tract", "tag", "bad name"}, clienv.ExitUsage},
		{[]string{"tract", "commit", "--type", "tools", "--text", "[{"}, clienv.ExitUsage},
		{[]string{"tract", "commit", "--type", "tools", "--text", `[{"name":"a b"}]`}, clienv.ExitUsage},
		{[]string{"tract", "commit", "--text", "x", "--meta", "[]"}, clienv.ExitUsage},
		{[]string{"tract", "find", "--tag", "nosuch"}, clienv.ExitFailure},
		{[]string{"tract", "tag", "--delete", "nosuch"}, clienv.ExitFailure},
		{[]string{"tract", "find", "one"}, clienv.ExitOK},
	} {
		if code, _, stderr := tractRun(t, dir, tc.args...); code != tc.code {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.code, stderr)
		}
	}
}
