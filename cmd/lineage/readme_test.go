package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateREADME = flag.Bool("update", false, "rewrite the outputs shown in README.md's Tour with what lineage prints now")

// TestREADME follows README.md's Tour as a new user would: every block from
// the "## Tour" heading on runs, in order, in one bash session, with the
// freshly built lineage first on PATH.
//
//   - A ```sh block is pasted as is: it must exit 0; its output is not shown
//     in the README, so it is not compared.
//   - A ```console block is a transcript: each "$ " line is a command (a line
//     ending in "\" continues on the next), the lines up to the next "$ " are
//     what it prints (stdout and stderr, as a terminal shows them). It must
//     exit 0 unless the transcript shows a "lineage: " error line.
//   - A block preceded by <!-- readme-test: skip REASON --> is not run (it
//     needs a server, or serves until interrupted).
//
// Outputs compare modulo the scratch directory (any ".../tour.XXXXXX"),
// commit hashes, timestamps and the column padding that path lengths move.
// A new Tour section needs nothing here: write its block correctly (or run
// go test ./cmd/lineage -run TestREADME -update and review the diff).
func TestREADME(t *testing.T) {
	bin := lineageBinary(t)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("the README's commands are bash")
	}
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := tourBlocks(string(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatal("README.md has no runnable block after \"## Tour\"")
	}
	script, cmds := tourScript(blocks)

	out := t.TempDir()
	work := t.TempDir()
	home := t.TempDir()
	run := exec.Command("bash", "--noprofile", "--norc", "-c", script)
	run.Dir = work
	run.Env = tourEnv(filepath.Dir(bin), out, home)
	log, err := run.CombinedOutput()
	tour, terr := tourDir(t, out)
	if err != nil {
		at := "before the first block"
		if p, rerr := os.ReadFile(filepath.Join(out, "progress")); rerr == nil {
			at = "in the block at README.md:" + strings.TrimSpace(string(p))
		}
		t.Fatalf("the Tour stopped %s: %v\n%s", at, err, log)
	}
	if terr != nil {
		t.Fatal(terr)
	}

	if left := append(lockFiles(work), lockFiles(tour)...); len(left) > 0 {
		t.Errorf("the Tour leaves lock files in the tree: %v", left)
	}

	var fixes []fix
	for i, c := range cmds {
		got, err := os.ReadFile(filepath.Join(out, strconv.Itoa(i)+".out"))
		if err != nil {
			t.Fatalf("README.md:%d: %s: did not run: %v", c.line, c.cmd, err)
		}
		rc, _ := os.ReadFile(filepath.Join(out, strconv.Itoa(i)+".rc"))
		code := strings.TrimSpace(string(rc))
		if code != "0" && !showsError(c.want) {
			t.Errorf("README.md:%d: %s: exit %s\n%s", c.line, c.cmd, code, got)
		}
		gotLines := splitOutput(string(got))
		if *updateREADME {
			shown := displayPaths(gotLines, tour)
			if cmp.Equal(normalize(c.want, displayTour), normalize(gotLines, tour)) {
				shown = c.want // only hashes and times moved: keep the diff to what changed
			}
			fixes = append(fixes, fix{c, shown})
			continue
		}
		if d := cmp.Diff(normalize(c.want, displayTour), normalize(gotLines, tour)); d != "" {
			t.Errorf("README.md:%d: %s: output differs from the README (-README +lineage):\n%s", c.line, c.cmd, d)
		}
	}
	if *updateREADME {
		src = []byte(applyFixes(string(src), fixes))
		if err := os.WriteFile("../../README.md", src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := checkPlaceholders(string(src)); err != nil {
		t.Error(err)
	}
}

// lockFiles lists the files named *.lock under dir, outside .git
// directories: what `git status` would show a Tour user.
func lockFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".lock") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// block is one fenced code block of the README.
type block struct {
	lang  string
	line  int // line of the first line inside the fence, 1-based
	lines []string
}

// command is one "$ " command of a console block and the output shown.
type command struct {
	line      int // 1-based README line of the "$ " line
	cmd       string
	want      []string
	wantStart int // index into the README's lines of the first output line
}

var skipMarker = regexp.MustCompile(`^<!--\s*readme-test:\s*skip\b.*-->\s*$`)

// tourBlocks returns the sh and console blocks after "## Tour" that are not
// marked to be skipped.
func tourBlocks(src string) ([]block, error) {
	lines := strings.Split(src, "\n")
	var blocks []block
	inTour, skipNext := false, false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "## "):
			inTour = strings.TrimSpace(l) == "## Tour"
			skipNext = false
			continue
		case skipMarker.MatchString(l):
			skipNext = true
			continue
		case !strings.HasPrefix(l, "```"):
			if strings.TrimSpace(l) != "" {
				skipNext = false
			}
			continue
		}
		b := block{lang: strings.Fields(l + " x")[0][3:], line: i + 2}
		if b.lang == "x" {
			b.lang = ""
		}
		j := i + 1
		for ; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			b.lines = append(b.lines, lines[j])
		}
		if j == len(lines) {
			return nil, fmt.Errorf("README.md:%d: code block never closed", i+1)
		}
		i = j
		if inTour && !skipNext && (b.lang == "sh" || b.lang == "console") {
			blocks = append(blocks, b)
		}
		skipNext = false
	}
	return blocks, nil
}

// commands splits a console block into its commands.
func (b block) commands() []command {
	var cmds []command
	for i := 0; i < len(b.lines); i++ {
		l := b.lines[i]
		if !strings.HasPrefix(l, "$ ") {
			if len(cmds) > 0 {
				cmds[len(cmds)-1].want = append(cmds[len(cmds)-1].want, l)
			}
			continue
		}
		c := command{line: b.line + i, cmd: strings.TrimPrefix(l, "$ ")}
		for strings.HasSuffix(c.cmd, `\`) && i+1 < len(b.lines) {
			i++
			c.cmd += "\n" + strings.TrimPrefix(b.lines[i], "> ")
		}
		c.wantStart = b.line - 1 + i + 1
		cmds = append(cmds, c)
	}
	return cmds
}

// tourScript writes the blocks as one bash script. sh blocks run under
// set -e; each console command's output and exit code go to numbered files
// in $README_TEST_OUT. Commands run in the shell itself, not a subshell, so
// cd and export carry on as in a terminal.
func tourScript(blocks []block) (string, []command) {
	var s strings.Builder
	var cmds []command
	s.WriteString("set +e\n")
	// The Tour's scratch directory, for the test to compare paths with and
	// to remove, however far the Tour got.
	s.WriteString("trap 'printf %s \"${TOUR-}\" > \"$README_TEST_OUT/tour\"' EXIT\n")
	for _, b := range blocks {
		fmt.Fprintf(&s, "echo %d > \"$README_TEST_OUT/progress\"\n", b.line-1)
		if b.lang == "sh" {
			s.WriteString("set -e\n")
			s.WriteString(strings.Join(b.lines, "\n"))
			s.WriteString("\nset +e\n")
			continue
		}
		for _, c := range b.commands() {
			n := len(cmds)
			fmt.Fprintf(&s, "{ %s\n} > \"$README_TEST_OUT/%d.out\" 2>&1; echo $? > \"$README_TEST_OUT/%d.rc\"\n", c.cmd, n, n)
			cmds = append(cmds, c)
		}
	}
	return s.String(), cmds
}

// tourEnv is a clean environment: lineage first on PATH, a scratch HOME and
// TMPDIR, none of lineage's own variables.
func tourEnv(binDir, out, home string) []string {
	env := []string{
		"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"README_TEST_OUT=" + out,
		"NO_COLOR=1",
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
	}
	return env
}

func showsError(want []string) bool {
	for _, l := range want {
		if strings.HasPrefix(l, "lineage: ") {
			return true
		}
	}
	return false
}

func splitOutput(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

var (
	// rfc3339 and epochMillis are times: commit times, file mtimes.
	rfc3339     = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)`)
	epochMillis = regexp.MustCompile(`\b1\d{12}\b`)
	// hash is a commit or blob hash, full or abbreviated.
	hash   = regexp.MustCompile(`\b[0-9a-f]{8,64}\b`)
	spaces = regexp.MustCompile(`[ \t]+`)
	// tourName is what mktemp makes of the Tour's template.
	tourName = regexp.MustCompile(`^/tmp/tour\.[A-Za-z0-9]{6}$`)
)

// displayTour is the scratch directory the README shows: what the Tour's
// `mktemp -d /tmp/tour.XXXXXX` printed once.
const displayTour = "/tmp/tour.Qx81mZ"

// tourDir is the scratch directory the Tour's script reported (the Tour
// makes it under /tmp, outside the test's own directories): it is removed
// when the test ends.
func tourDir(t *testing.T, out string) (string, error) {
	b, err := os.ReadFile(filepath.Join(out, "tour"))
	dir := string(b)
	if err != nil || !tourName.MatchString(dir) {
		return "", fmt.Errorf("the Tour did not make its scratch directory as /tmp/tour.XXXXXX (got %q, %v)", dir, err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir, nil
}

// normalize makes an output comparable across machines and runs: tour, the
// scratch directory this output was printed in, becomes $TOUR. Only that
// exact string is replaced (and its /private twin, as macOS resolves
// /tmp), so a placeholder can only stand where a path stood, never across
// the text around it.
func normalize(lines []string, tour string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = strings.ReplaceAll(l, "/private"+tour, tour)
		l = strings.ReplaceAll(l, tour, "$TOUR")
		l = rfc3339.ReplaceAllString(l, "<time>")
		l = epochMillis.ReplaceAllString(l, "<time>")
		l = hash.ReplaceAllString(l, "<hash>")
		l = strings.TrimRight(spaces.ReplaceAllString(l, " "), " ")
		out = append(out, l)
	}
	return out
}

// displayPaths shows the scratch directory as the README does.
func displayPaths(lines []string, tour string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(l, "/private"+tour, tour), tour, displayTour)
	}
	return out
}

// checkPlaceholders fails when the README shows the scratch directory
// where no path can start or end: after "<" or a letter (inside an XML tag
// or a word, as "</tmp/tour…" once showed), or before a letter. An escaped
// newline in JSON ("\n/tmp/…") is a boundary.
func checkPlaceholders(readme string) error {
	var bad []string
	for n, l := range strings.Split(readme, "\n") {
		for i := 0; ; {
			j := strings.Index(l[i:], displayTour)
			if j < 0 {
				break
			}
			at, end := i+j, i+j+len(displayTour)
			i = end
			before := l[:at]
			okBefore := before == "" || strings.ContainsAny(before[len(before)-1:], " \t\"'(=:>`") || strings.HasSuffix(before, `\n`)
			okAfter := end == len(l) || strings.ContainsAny(l[end:end+1], "/ \t\"')<`\\,:")
			if !okBefore || !okAfter {
				bad = append(bad, fmt.Sprintf("README.md:%d: %s", n+1, l))
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("the scratch directory stands inside a token (mangled output):\n%s", strings.Join(bad, "\n"))
	}
	return nil
}

type fix struct {
	c   command
	got []string
}

// applyFixes replaces each command's shown output with what it printed.
func applyFixes(src string, fixes []fix) string {
	lines := strings.Split(src, "\n")
	var b bytes.Buffer
	next := 0
	for _, f := range fixes {
		for ; next < f.c.wantStart; next++ {
			b.WriteString(lines[next] + "\n")
		}
		for _, l := range f.got {
			b.WriteString(l + "\n")
		}
		next += len(f.c.want)
	}
	for ; next < len(lines); next++ {
		b.WriteString(lines[next])
		if next < len(lines)-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}
