package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The README test's own rules: which blocks run, how a transcript splits
// into commands, what output differences are forgiven.
func TestTourBlocks(t *testing.T) {
	src := strings.Join([]string{
		"## Set up",
		"```sh",
		"go install ./cmd/lineage",
		"```",
		"## Tour",
		"```sh",
		"mkdir x",
		"```",
		"<!-- readme-test: skip (needs a server) -->",
		"```console",
		"$ lineage serve",
		"```",
		"```toml",
		"a = 1",
		"```",
		"```console",
		"$ cd x",
		"$ lineage tract log \\",
		"> --graph",
		"* 1234abcd (HEAD, main) first",
		"",
		"$ true",
		"```",
		"## Layout",
		"```sh",
		"echo not run",
		"```",
	}, "\n")
	blocks, err := tourBlocks(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].lang != "sh" || blocks[1].lang != "console" {
		t.Fatalf("blocks = %+v, want the Tour's sh block and its unskipped console block", blocks)
	}
	if blocks[0].line != 7 || blocks[1].line != 17 {
		t.Errorf("block lines = %d, %d, want 7, 17", blocks[0].line, blocks[1].line)
	}
	cmds := blocks[1].commands()
	want := []command{
		{line: 17, cmd: "cd x", wantStart: 17},
		{line: 18, cmd: "lineage tract log \\\n--graph", want: []string{"* 1234abcd (HEAD, main) first", ""}, wantStart: 19},
		{line: 22, cmd: "true", wantStart: 22},
	}
	if d := cmp.Diff(want, cmds, cmp.AllowUnexported(command{})); d != "" {
		t.Errorf("commands (-want +got):\n%s", d)
	}

	if _, err := tourBlocks("## Tour\n```sh\necho open\n"); err == nil || !strings.Contains(err.Error(), "README.md:2: code block never closed") {
		t.Errorf("unclosed block: err = %v", err)
	}
}

func TestNormalize(t *testing.T) {
	const tour = "/tmp/tour.AbC123"
	got := normalize([]string{
		"loaded  /tmp/tour.AbC123/repo   /tmp/tour.AbC123/repo/AGENTS.md (53 bytes)",
		"- /private/tmp/tour.AbC123/web/AGENTS.md (mtime: 1795456388395)",
		"* 325d6b8f (HEAD, main) at 2026-11-23T09:00:00.5Z   ",
		"merged researcher into main: babb21fd",
		"coder 4 commits",
		// Only the scratch directory itself is replaced: never the text
		// before it, across a JSON escape or an XML tag.
		`{"a":"release.</description>\n<location>/tmp/tour.AbC123/repo/SKILL.md</location>"}`,
		"/tmp/tour.Zz9999/repo",
	}, tour)
	want := []string{
		"loaded $TOUR/repo $TOUR/repo/AGENTS.md (53 bytes)",
		"- $TOUR/web/AGENTS.md (mtime: <time>)",
		"* <hash> (HEAD, main) at <time>",
		"merged researcher into main: <hash>",
		"coder 4 commits",
		`{"a":"release.</description>\n<location>$TOUR/repo/SKILL.md</location>"}`,
		"/tmp/tour.Zz9999/repo",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("normalize (-want +got):\n%s", d)
	}
	// What the user sees must still be compared: text, sizes, counts.
	if d := cmp.Diff(normalize([]string{"ok: 3 blobs"}, tour), normalize([]string{"ok: 4 blobs"}, tour)); d == "" {
		t.Error("normalize hid a count difference")
	}
	if got := displayPaths([]string{`"\n<location>/tmp/tour.AbC123/x</location>"`}, tour); got[0] != `"\n<location>`+displayTour+`/x</location>"` {
		t.Errorf("displayPaths = %q", got)
	}
}

// The check that keeps mangled output out of the README: a placeholder
// that stands inside a tag or a word fails, paths in text, JSON strings and
// XML elements pass.
func TestCheckPlaceholders(t *testing.T) {
	for _, ok := range []string{
		"Instructions from: " + displayTour + "/repo/AGENTS.md",
		`{"additionalContext":"\nInstructions from: ` + displayTour + `/repo/AGENTS.md\n"}`,
		`"\n` + displayTour + `/repo"`,
		"<location>" + displayTour + "/repo/SKILL.md</location>",
		"root: " + displayTour + " (marker:.git)",
		"created " + displayTour,
	} {
		if err := checkPlaceholders("x\n" + ok + "\n"); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{
		`{"a":"tagging a release.<` + displayTour + `/repo/SKILL.md</location>"}`,
		"x" + displayTour + "/repo",
		displayTour + "x/repo",
	} {
		err := checkPlaceholders("x\n" + bad + "\n")
		if err == nil || !strings.Contains(err.Error(), "README.md:2: ") {
			t.Errorf("%s: err = %v, want a finding at README.md:2", bad, err)
		}
	}
}

func TestApplyFixes(t *testing.T) {
	src := "## Tour\n```console\n$ a\nold1\nold2\n$ b\n$ c\nkeep?\n```\ntail"
	blocks, err := tourBlocks(src)
	if err != nil {
		t.Fatal(err)
	}
	cmds := blocks[0].commands()
	got := applyFixes(src, []fix{{cmds[0], []string{"new1"}}, {cmds[1], []string{"B1", "B2"}}, {cmds[2], nil}})
	want := "## Tour\n```console\n$ a\nnew1\n$ b\nB1\nB2\n$ c\n```\ntail"
	if got != want {
		t.Errorf("applyFixes:\n%s\nwant:\n%s", got, want)
	}
}
