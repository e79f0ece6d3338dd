package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/cli/clienv"
)

// TestStdinTerminalNotice: a command that reads stdin says so on stderr
// when stdin is a terminal, and stays quiet when it is a pipe or a file.
func TestStdinTerminalNotice(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := runLine(t, dir, "tract", "init"); code != 0 {
		t.Fatalf("init: %d %s", code, stderr)
	}
	cases := []struct {
		args     []string
		input    string
		terminal bool
		code     int
		notice   string
	}{
		{[]string{"tract", "commit"}, "hello", true, clienv.ExitOK, "lineage: reading the text from stdin (end with Ctrl-D)\n"},
		{[]string{"tract", "commit", "--file", "-"}, "hello", true, clienv.ExitOK, "lineage: reading the text from stdin (end with Ctrl-D)\n"},
		{[]string{"tract", "import", "-"}, `[{"role":"user","content":"hi"}]`, true, clienv.ExitOK, "lineage: reading messages from stdin (end with Ctrl-D)\n"},
		// The notice comes before the wait, so an empty read still shows it.
		{[]string{"tract", "commit"}, "", true, clienv.ExitUsage, "lineage: reading the text from stdin (end with Ctrl-D)\n"},
		{[]string{"tract", "commit"}, "hello", false, clienv.ExitOK, ""},
		{[]string{"tract", "import", "-"}, `[]`, false, clienv.ExitOK, ""},
		{[]string{"mcp", "--cwd", dir}, "", true, clienv.ExitOK, "lineage: serving MCP on stdin and stdout"},
		{[]string{"mcp", "--cwd", dir}, "", false, clienv.ExitOK, ""},
		// Text given on the command line never touches stdin.
		{[]string{"tract", "commit", "--text", "x"}, "", true, clienv.ExitOK, ""},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		env := &clienv.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(c.input), StdinTerminal: c.terminal, Dir: dir}
		code := Run(context.Background(), c.args, env)
		if code != c.code {
			t.Errorf("%v (terminal %v): exit %d, want %d; stderr %s", c.args, c.terminal, code, c.code, errb.String())
		}
		if got := errb.String(); !strings.HasPrefix(got, c.notice) || (c.notice == "" && strings.Contains(got, "reading")) {
			t.Errorf("%v (terminal %v): stderr %q, want it to start with %q", c.args, c.terminal, got, c.notice)
		}
	}
}

// TestLazyGroups: building only the invoked group changes nothing a user
// sees: the root help and the completion of group names read the same as
// with every group built, and each group's own help is its full help.
func TestLazyGroups(t *testing.T) {
	run := func(args []string, full bool) string {
		var out bytes.Buffer
		env := &clienv.Env{Stdout: &out, Stderr: &out, Stdin: strings.NewReader("")}
		var root = NewRootCmd(env, append([]string{}, args...)...)
		if full {
			root = NewRootCmd(env)
		}
		root.SetArgs(args)
		_ = root.ExecuteContext(context.Background())
		return out.String()
	}
	for _, args := range [][]string{
		{"--help"}, {"help"}, {"help", "tract"}, {"help", "tract", "commit"},
		{"__complete", ""}, {"__complete", "tr"}, {"__complete", "tract", "co"}, {"__complete", "agents", "profile", "--k"},
		{"tract", "--help"}, {"agents", "--help"}, {"instructions", "resolve", "--help"}, {"mcp", "--help"},
	} {
		lazy, full := run(args, false), run(args, true)
		if lazy != full {
			t.Errorf("%q: lazy tree prints\n%s\nfull tree prints\n%s", args, lazy, full)
		}
	}
	for _, g := range groups {
		if got := g.build(&clienv.Env{}).Short; got != g.short {
			t.Errorf("group %s: stub says %q, the group %q", g.name, g.short, got)
		}
	}
	// Only the named group is built.
	root := NewRootCmd(&clienv.Env{}, "tract", "commit")
	for _, c := range root.Commands() {
		if built := len(c.Commands()) > 0 || c.Flags().HasFlags(); built != (c.Name() == "tract") {
			t.Errorf("group %s built = %v", c.Name(), built)
		}
	}
}

// runLine runs one command line in process with a fixed LINEAGE_NOW and
// returns its exit code, stdout and stderr.
func runLine(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &clienv.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Dir: dir,
		LookupEnv: func(k string) (string, bool) {
			if k == "LINEAGE_NOW" {
				return "2026-01-02T03:04:05Z", true
			}
			return "", false
		}}
	code := Run(context.Background(), args, env)
	return code, out.String(), errb.String()
}
