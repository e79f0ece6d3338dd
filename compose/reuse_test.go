package compose_test

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/instructions/fstest"
	"github.com/agentlineage/lineage/internal/platformtest"
	"github.com/agentlineage/lineage/skills"
)

// countingFS counts what the instruction loader asks of the filesystem.
type countingFS struct {
	instructions.FS
	calls atomic.Int64
}

func (c *countingFS) Stat(name string) (fs.FileInfo, error) {
	c.calls.Add(1)
	return c.FS.Stat(name)
}

func (c *countingFS) Lstat(name string) (fs.FileInfo, error) {
	c.calls.Add(1)
	return c.FS.Lstat(name)
}

func (c *countingFS) OpenRegular(name string) (io.ReadCloser, error) {
	c.calls.Add(1)
	return c.FS.OpenRegular(name)
}

// The counting fake behaves as the filesystem it wraps.
func TestCountingFSConformance(t *testing.T) {
	fstest.Run(t, func(*testing.T, string) instructions.FS { return &countingFS{FS: instructions.OS} })
}

// With Sources, a second compile for the same directory asks the
// filesystem nothing through the loader (the chain is reused, its trail
// checked by stat alone) and gives what a compile without Sources gives;
// after an edit (same size), a removal, or a new project marker below the
// old root, the next compile reads again and gives the new chain, again
// what a compile without Sources gives.
func TestSourcesReuseTheChainUntilItChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	platformtest.WriteTree(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "AGENTS.md": "root rules\n",
		"sub/AGENTS.md": "sub rules\n", "sub/deep/AGENTS.md": "deep rules\n"})
	platformtest.AgeTree(t, dir)
	counting := &countingFS{FS: instructions.OS}
	src := compose.NewSources()
	o := compose.Options{Target: "sub/deep", Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir, Home: dir, FS: counting}}
	// compile compiles with and without Sources and returns how many
	// times the one with Sources asked the filesystem.
	compile := func(want int, contains, lacks string) int64 {
		t.Helper()
		plain, err := compose.Compile(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		with := o
		with.Sources = src
		before := counting.calls.Load()
		res, err := compose.Compile(ctx, with)
		asked := counting.calls.Load() - before
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(plain, res); diff != "" {
			t.Fatalf("with Sources (-without +with):\n%s", diff)
		}
		text := res.Messages[0].Content
		if !strings.Contains(text, contains) || (lacks != "" && strings.Contains(text, lacks)) {
			t.Fatalf("chain without %q or with %q:\n%s", contains, lacks, text)
		}
		if src.Reads() != want {
			t.Fatalf("sources read %d times, want %d", src.Reads(), want)
		}
		return asked
	}
	// Reused, the chain costs the filesystem one question: the target's
	// stat (is it a directory), which every compile asks.
	if read, reused := compile(1, "sub rules", ""), compile(1, "sub rules", ""); read < 10 || reused != 1 {
		t.Errorf("the filesystem was asked %d times reading the chain, %d times reusing it", read, reused)
	}

	platformtest.WriteTree(t, dir, map[string]string{"sub/AGENTS.md": "SUB RULES\n"})
	compile(2, "SUB RULES", "sub rules")
	platformtest.AgeTree(t, dir)
	compile(3, "SUB RULES", "")
	compile(3, "SUB RULES", "")

	if err := os.Remove(filepath.Join(dir, "sub", "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	platformtest.AgeTree(t, dir)
	compile(4, "deep rules", "SUB RULES")
	compile(4, "root rules", "SUB RULES")

	platformtest.WriteTree(t, dir, map[string]string{"sub/deep/.git": "gitdir: ../../.git/modules/deep\n"})
	platformtest.AgeTree(t, dir)
	compile(5, "deep rules", "root rules")
	compile(5, "deep rules", "root rules")
}

// The skills catalog block is kept the same way: reused while no skill
// folder, skill or SKILL.md changes, and read again — giving what a
// compile without Sources gives — after a skill is added, a SKILL.md is
// edited, a file a skill references appears, or a skill is removed.
func TestSourcesReuseTheSkillsUntilTheyChange(t *testing.T) {
	dir := t.TempDir()
	platformtest.WriteTree(t, dir, map[string]string{".git/HEAD": "x", "AGENTS.md": "Run the tests.\n",
		".agents/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release.\n---\nTag it, see [notes](notes.md).",
		".claude/skills/review/SKILL.md":  "---\nname: review\ndescription: Review a change.\n---\nRead it."})
	platformtest.AgeTree(t, dir)
	src := compose.NewSources()
	o := compose.Options{Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir, Home: dir},
		Skills: &skills.Options{}, Format: compose.FormatText}
	compile := func(reads int, contains, lacks string) {
		t.Helper()
		reuseCompile(t, o, src, "catalog", func(r compose.Result) string { return r.Messages[1].Content }, contains, lacks)
		// Two parts are read: the chain and the catalog.
		if src.Reads() != reads {
			t.Fatalf("sources read %d times, want %d", src.Reads(), reads)
		}
	}
	compile(2, "Cut a release.", "")
	compile(2, "Cut a release.", "")
	if !strings.Contains(strings.Join(mustCompile(t, o).Warnings, "\n"), "1 problem") {
		t.Fatal("the missing notes.md is not a problem")
	}

	for i, change := range []struct {
		files          map[string]string
		remove         string
		contains, lack string
	}{
		{files: map[string]string{".agents/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Ship it.\n---\nGo."}, contains: "Ship it."},
		{files: map[string]string{".agents/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a RELEASE.\n---\nTag it, see [notes](notes.md)."},
			contains: "Cut a RELEASE.", lack: "Cut a release."},
		{files: map[string]string{".agents/skills/release/notes.md": "notes\n"}, contains: "Cut a RELEASE."},
		{remove: ".claude/skills/review", contains: "Ship it.", lack: "Review a change."},
	} {
		if change.files != nil {
			platformtest.WriteTree(t, dir, change.files)
		}
		if change.remove != "" {
			if err := os.RemoveAll(filepath.Join(dir, change.remove)); err != nil {
				t.Fatal(err)
			}
		}
		platformtest.AgeTree(t, dir)
		compile(3+i, change.contains, change.lack)
		compile(3+i, change.contains, change.lack)
	}
	if w := mustCompile(t, o).Warnings; len(w) != 0 {
		t.Errorf("warnings once notes.md exists: %v", w)
	}
}

func mustCompile(t *testing.T, o compose.Options) compose.Result {
	t.Helper()
	res, err := compose.Compile(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// An agent's profile block is kept the same way: reused while no document
// of its chain, no directory of its domains and no inherited document
// changes, and read again — giving what a compile without Sources gives —
// after the document is edited, a context appears in a nearer domain, an
// inherited document that was missing appears, or the document goes (a
// refusal, never kept).
func TestSourcesReuseTheProfileUntilItChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	platformtest.WriteTree(t, dir, map[string]string{".git/HEAD": "x", "sub/deep/x.go": "package x\n",
		".clia/agents/tau/tau@ws.agent.triad.json": `{"schemaVersion":"0.4.0","slug":"tau","guardrails":["no force push"],"inherits":["./base.json"]}` + "\n"})
	platformtest.AgeTree(t, dir)
	src := compose.NewSources()
	o := compose.Options{Target: "sub/deep", Slug: "tau", Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir, Home: dir},
		Format: compose.FormatText}
	compile := func(reads int, contains, lacks string) {
		t.Helper()
		reuseCompile(t, o, src, "profile", func(r compose.Result) string { return r.Messages[len(r.Messages)-1].Content }, contains, lacks)
		// Two parts are read: the chain and the profile.
		if src.Reads() != reads {
			t.Fatalf("sources read %d times, want %d", src.Reads(), reads)
		}
	}
	compile(2, "no force push", "")
	compile(2, "no force push", "")
	for i, change := range []struct {
		files          map[string]string
		contains, lack string
	}{
		{map[string]string{".clia/agents/tau/tau@ws.agent.triad.json": `{"schemaVersion":"0.4.0","slug":"tau","guardrails":["NO FORCE PUSH"],"inherits":["./base.json"]}` + "\n"},
			"NO FORCE PUSH", "no force push"},
		{map[string]string{"sub/.clia/agents/tau/tau@sub.agent.triad.json": `{"schemaVersion":"0.4.0","slug":"tau","role":"librarian"}` + "\n"},
			"librarian", ""},
		{map[string]string{".clia/agents/tau/base.json": `{"directives":["be brief"]}` + "\n"}, "be brief", ""},
	} {
		platformtest.WriteTree(t, dir, change.files)
		platformtest.AgeTree(t, dir)
		// The chain did not change: only the profile is read again.
		compile(3+i, change.contains, change.lack)
		compile(3+i, change.contains, change.lack)
	}
	for _, p := range []string{".clia/agents/tau/tau@ws.agent.triad.json", "sub/.clia/agents/tau/tau@sub.agent.triad.json"} {
		if err := os.Remove(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	platformtest.AgeTree(t, dir)
	with := o
	with.Sources = src
	if _, err := compose.Compile(ctx, with); err == nil || !strings.Contains(err.Error(), "tau") {
		t.Fatalf("without the agent's documents: %v", err)
	}
}

// reuseCompile compiles o without and with src, fails unless both give the
// same result, and checks that the text block picks holds contains and
// not lacks (what names the block in a failure).
func reuseCompile(t *testing.T, o compose.Options, src *compose.Sources, what string, block func(compose.Result) string, contains, lacks string) {
	t.Helper()
	plain, err := compose.Compile(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	o.Sources = src
	res, err := compose.Compile(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain, res); diff != "" {
		t.Fatalf("with Sources (-without +with):\n%s", diff)
	}
	if text := block(res); !strings.Contains(text, contains) || (lacks != "" && strings.Contains(text, lacks)) {
		t.Fatalf("%s without %q or with %q:\n%s", what, contains, lacks, text)
	}
}
