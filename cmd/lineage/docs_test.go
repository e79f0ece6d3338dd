package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/cli"
)

// knownCommands are the programs other than lineage that README.md and
// docs/*.md tell a reader to run: the shell's own, the Go toolchain, git,
// and the harnesses whose set-up the docs show.
var knownCommands = []string{
	"cat", "claude", "cmp", "codex", "gemini", "git", "go", "mkdir", "mktemp", "openssl", "printf", "rm", "touch", "tr",
}

// Every ```sh and ```console block of README.md and docs/*.md is runnable
// as pasted: the shell parses it, every program it runs is lineage or one
// of knownCommands, and every lineage command line names a command that
// exists with flags it takes (the command line with --help appended exits
// 0). A synopsis ("lineage hook status [claude|gemini|codex]") belongs in
// a ```text block. The Tour's blocks also run whole (TestREADME); running
// every docs block would need servers, harnesses and set-ups of their own,
// so here each is checked by bash's parser and lineage's own flag parser.
func TestDocsShellBlocks(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("the docs' commands are bash")
	}
	files, _ := filepath.Glob("../../docs/*.md")
	files = append([]string{"../../README.md"}, files...)
	checked := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(f, "../../")
		for _, b := range shellBlocks(string(src)) {
			script := strings.Join(b.lines, "\n")
			if b.lang == "console" {
				var cmds []string
				for _, c := range b.commands() {
					cmds = append(cmds, c.cmd)
				}
				script = strings.Join(cmds, "\n")
			}
			checkShellBlock(t, name, b.line, script)
			checked++
		}
	}
	if checked < 10 {
		t.Fatalf("only %d shell blocks found in README.md and docs/", checked)
	}
}

// shellBlocks returns every sh and console block of a Markdown file.
func shellBlocks(src string) []block {
	var out []block
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		b := block{lang: strings.TrimSpace(strings.TrimPrefix(lines[i], "```")), line: i + 2}
		j := i + 1
		for ; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			b.lines = append(b.lines, lines[j])
		}
		i = j
		if b.lang == "sh" || b.lang == "console" {
			out = append(out, b)
		}
	}
	return out
}

// checkShellBlock runs script in bash in an empty directory, PATH an empty one:
// builtins run, every other program lands in command_not_found_handle,
// which records its name, and lineage is a function that records its
// arguments. Each lineage command line is then parsed by lineage's own
// command tree: the command must exist, its flags and its arguments be
// ones it takes.
func checkShellBlock(t *testing.T, file string, line int, script string) {
	t.Helper()
	at := file + ":" + strconv.Itoa(line)
	if out, err := exec.Command("bash", "-n", "-c", script).CombinedOutput(); err != nil {
		t.Errorf("%s: the block does not parse: %v\n%s", at, err, out)
		return
	}
	dir := t.TempDir()
	rec := filepath.Join(t.TempDir(), "rec")
	stub := `shopt -s failglob
command_not_found_handle() { printf '%s\n' "$1" >> "$REC.run"; return 0; }
lineage() { printf '%s\0' "$@" > "$REC.lineage.$BASHPID.$RANDOM$RANDOM"; }
`
	run := exec.Command("bash", "--noprofile", "--norc", "-c", stub+script)
	run.Dir = dir
	run.Env = []string{"PATH=" + t.TempDir(), "REC=" + rec, "HOME=" + dir, "TMPDIR=" + dir}
	run.Stdin = strings.NewReader("")
	// failglob: a word with an unquoted ? or * that matches no file fails,
	// as zsh (macOS's shell) fails it, instead of passing as typed.
	out, _ := run.CombinedOutput() // what the block does with no programs is not the point; what it runs is
	if strings.Contains(string(out), "no match: ") {
		t.Errorf("%s: an unquoted glob a shell may expand or refuse (quote it):\n%s", at, out)
	}
	ran, _ := os.ReadFile(rec + ".run")
	for _, name := range strings.Fields(string(ran)) {
		if !slices.Contains(knownCommands, name) {
			t.Errorf("%s: runs %q, which is neither lineage nor a program the docs expect (knownCommands)", at, name)
		}
	}
	calls, _ := filepath.Glob(rec + ".lineage.*")
	for _, c := range calls {
		b, _ := os.ReadFile(c)
		args := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
		if len(b) == 0 {
			args = nil
		}
		if err := parseCommandLine(args); err != nil {
			t.Errorf("%s: lineage %s: %v", at, strings.Join(args, " "), err)
		}
	}
}

// parseCommandLine does what lineage does with args up to running the
// command: find it, parse its flags, check its arguments.
func parseCommandLine(args []string) error {
	env := &cli.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}
	root := cli.NewRootCmd(env)
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	if help, _ := cmd.Flags().GetBool("help"); help {
		return nil
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}
