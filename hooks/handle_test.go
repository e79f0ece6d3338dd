package hooks

import (
	"bytes"
	"context"
	"errors"
	"github.com/agentlineage/lineage/internal/platformtest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/instructions"
)

func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for p, body := range map[string]string{
		".git/HEAD": "", "AGENTS.md": "root", "web/AGENTS.md": "web", "web/src/app.ts": "",
	} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadsNothing is the native view of a harness that loads none of the
// chain's files itself.
func loadsNothing(h *Harness, _ string) Native {
	return Native{Harness: h, Known: true, rules: ownRules(h)}
}

// plainRules are the rules after a start whose bodies lineage sent.
var plainRules = RulesHeader + "\n- The AGENTS.md files that apply to the working directory are above; do not search for AGENTS.md files on every turn.\n" +
	ruleReminder + "\n" + ruleOnce("AGENTS.md") + "\n" + ruleResume

func handle(t *testing.T, opts Options, ev Event) string {
	t.Helper()
	if opts.View == nil {
		opts.View = loadsNothing
	}
	res, err := Handle(context.Background(), Claude, ev, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res.Context
}

func TestStateFileModeAndNoWriteWhenUnchanged(t *testing.T) {
	r := repo(t)
	opts := Options{Instructions: instructions.Options{Config: instructions.DefaultConfig()}, SessionsDir: filepath.Join(t.TempDir(), "sessions")}
	handle(t, opts, Event{Kind: Start, Name: "SessionStart", SessionID: "s1", Cwd: r})
	path, _ := SessionPath(opts.SessionsDir, "claude", "s1")
	platformtest.Perm(t, path, 0o600)
	tool := Event{Kind: Tool, Name: "PostToolUse", SessionID: "s1", Cwd: r, Paths: []string{"web/src/app.ts"}}
	if got := handle(t, opts, tool); !strings.Contains(got, filepath.Join(r, "web", "AGENTS.md")) {
		t.Fatalf("first touch: %q", got)
	}
	before, _ := os.Stat(path)
	// A touch that reports nothing must not rewrite the file: backdate it
	// and check the time survives.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if got := handle(t, opts, tool); got != "" {
		t.Fatalf("second touch: %q", got)
	}
	after, _ := os.Stat(path)
	if !after.ModTime().Equal(old) || !os.SameFile(before, after) {
		t.Errorf("an unchanged state was written again (mtime %v, want %v)", after.ModTime(), old)
	}
}

func TestHostileSessionIDStaysInside(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	for _, id := range []string{"../../etc/passwd", "..", ".", "a/b", `a\b`, "x\x00y", strings.Repeat("a", 200), ".hidden", "ok-id_1.2"} {
		p, err := SessionPath(dir, "claude", id)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(p) != dir || strings.ContainsAny(filepath.Base(p), `/\`+"\x00") {
			t.Errorf("id %q gives %q, outside %s", id, p, dir)
		}
	}
	a, _ := SessionPath(dir, "claude", "../x")
	b, _ := SessionPath(dir, "claude", "../y")
	if a == b {
		t.Error("two hostile ids share a file")
	}
	if p, _ := SessionPath(dir, "gemini", "ok-id_1.2"); filepath.Base(p) != "gemini-ok-id_1.2.json" {
		t.Errorf("plain id renamed: %s", p)
	}
}

func TestExpiredStatesRemovedOnWrite(t *testing.T) {
	r := repo(t)
	dir := filepath.Join(t.TempDir(), "sessions")
	now := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
	opts := Options{Instructions: instructions.Options{Config: instructions.DefaultConfig()}, SessionsDir: dir, Now: func() time.Time { return now }}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name string, age time.Duration) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := now.Add(-age)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		return p
	}
	oldState := write("claude-old.json", 8*24*time.Hour)
	oldLock := write("claude-old.json.lock", 30*24*time.Hour)
	liveState := write("claude-live.json", 6*24*time.Hour)
	liveLock := write("claude-live.json.lock", 30*24*time.Hour) // an old lock of a live session
	other := write("notes.txt", 30*24*time.Hour)
	handle(t, opts, Event{Kind: Start, Name: "SessionStart", SessionID: "new", Cwd: r})
	for p, want := range map[string]bool{oldState: false, oldLock: false, liveState: true, liveLock: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

func TestResumeWithoutStateStartsOver(t *testing.T) {
	r := repo(t)
	opts := Options{Instructions: instructions.Options{Config: instructions.DefaultConfig()}, SessionsDir: t.TempDir()}
	got := handle(t, opts, Event{Kind: Resume, Name: "SessionStart", SessionID: "never-seen", Cwd: r})
	if !strings.HasPrefix(got, "<agents_context scope=\"initial\">") || !strings.HasSuffix(got, plainRules) {
		t.Errorf("resume of an unknown session: %q", got)
	}
	if got := handle(t, opts, Event{Kind: Resume, Name: "SessionStart", SessionID: "never-seen", Cwd: r}); got != "" {
		t.Errorf("resume with nothing changed: %q", got)
	}
}

// A broken state file is moved aside (kept for inspection), said once,
// and the event is answered as if there were none.
func TestBrokenStateIsMovedAside(t *testing.T) {
	r := repo(t)
	dir := t.TempDir()
	p, _ := SessionPath(dir, "claude", "b")
	broken := []byte(`{"version": 9}`)
	if err := os.WriteFile(p, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Handle(context.Background(), Claude, Event{Kind: Tool, Name: "PostToolUse", SessionID: "b", Cwd: r, Paths: []string{"web"}},
		Options{Instructions: instructions.Options{Config: instructions.DefaultConfig()}, SessionsDir: dir})
	if err != nil || !strings.HasPrefix(res.Context, "<agents_context") {
		t.Fatalf("answer: %q, %v", res.Context, err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], p) || !strings.Contains(res.Warnings[0], p+".broken") {
		t.Errorf("warnings %q, want one naming %s and where it went", res.Warnings, p)
	}
	if got, err := os.ReadFile(p + ".broken"); err != nil || string(got) != string(broken) {
		t.Errorf("kept aside: %q, %v", got, err)
	}
	if _, ok, err := instructions.ReadState(p); !ok || err != nil {
		t.Errorf("a fresh state must be saved: %v, %v", ok, err)
	}
}

func TestStartWithSlugCarriesGuardrails(t *testing.T) {
	r := repo(t)
	triadPath := filepath.Join(r, ".clia", "agents", "coder", "coder@repo.agent.triad.json")
	if err := os.MkdirAll(filepath.Dir(triadPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(triadPath, []byte(`{"schemaVersion": "0.4.0", "slug": "coder", "guardrails": ["Never push to main", "Keep\nit short"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{Instructions: instructions.Options{Config: instructions.DefaultConfig()}, SessionsDir: t.TempDir(), Slug: "coder", View: loadsNothing}
	res, err := Handle(context.Background(), Claude, Event{Kind: Start, Name: "SessionStart", SessionID: "p", Cwd: r}, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := "<agent_profile slug=\"coder\">\nGuardrails for this agent, merged from its CLIA triads (keep every one):\n" +
		"- Never push to main (from " + triadPath + ")\n- \"Keep\\nit short\" (from " + triadPath + ")\n</agent_profile>\n\n" + plainRules
	if !strings.HasSuffix(res.Context, want) || len(res.Warnings) != 0 {
		t.Errorf("context =\n%s\nwant suffix\n%s\nwarnings %q", res.Context, want, res.Warnings)
	}
	opts.Slug = "nobody"
	res, err = Handle(context.Background(), Claude, Event{Kind: Start, Name: "SessionStart", SessionID: "p", Cwd: r}, opts)
	if err != nil || strings.Contains(res.Context, "agent_profile") || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], `no context for slug "nobody"`) {
		t.Errorf("unknown slug: %v, warnings %q", err, res.Warnings)
	}
}

// A reminder the harness never got (its output write failed) is not
// marked reported: the next tool call reports it again.
func TestFailedDeliveryIsNotReported(t *testing.T) {
	r := repo(t)
	opts := Options{Instructions: instructions.Options{Config: instructions.DefaultConfig()}, SessionsDir: filepath.Join(t.TempDir(), "sessions")}
	handle(t, opts, Event{Kind: Start, Name: "SessionStart", SessionID: "s1", Cwd: r})
	tool := Event{Kind: Tool, Name: "PostToolUse", SessionID: "s1", Cwd: r, Paths: []string{"web/src/app.ts"}}
	failing := opts
	failing.Out = failingWriter{}
	if _, err := Handle(context.Background(), Claude, tool, failing); err == nil || err.Error() != "write the answer: broken pipe" {
		t.Fatalf("a failed delivery must be the error, got %v", err)
	}
	var got []string
	for range 2 {
		var out bytes.Buffer
		delivering := opts
		delivering.Out = &out
		res, err := Handle(context.Background(), Claude, tool, delivering)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Claude.Output(tool, res.Context)
		if out.String() != string(want) {
			t.Errorf("wrote %q, want the harness's output %q", out.String(), want)
		}
		got = append(got, res.Context)
	}
	if len(got) != 2 || !strings.Contains(got[0], filepath.Join(r, "web", "AGENTS.md")) || got[1] != "" {
		t.Errorf("after a failed delivery: %q, want the reminder once, then nothing", got)
	}
}

// A sessions directory that cannot be written: answers without state,
// one warning each, never an error. Two ways to be unwritable: a read-only
// directory, and a path under a regular file (the one Windows has too).
func TestReadOnlySessionsDirAnswersStatelessly(t *testing.T) {
	t.Run("read-only", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("Windows directories have no write permission bit (the read-only attribute does not stop creating files in one)")
		}
		if os.Geteuid() == 0 {
			t.Skip("root writes into read-only directories")
		}
		dir := filepath.Join(t.TempDir(), "sessions")
		if err := os.Mkdir(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		answersStatelessly(t, dir)
	})
	t.Run("under-a-file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		answersStatelessly(t, filepath.Join(file, "sessions"))
	})
}

func answersStatelessly(t *testing.T, dir string) {
	t.Helper()
	r := repo(t)
	opts := Options{Instructions: instructions.Options{Config: instructions.DefaultConfig()}, SessionsDir: dir}
	start, err := Handle(context.Background(), Claude, Event{Kind: Start, Name: "SessionStart", SessionID: "s1", Cwd: r}, opts)
	if err != nil || !strings.Contains(start.Context, "<agents_context") || len(start.Warnings) != 1 {
		t.Fatalf("start: %+v, %v", start, err)
	}
	tool := Event{Kind: Tool, Name: "PostToolUse", SessionID: "s1", Cwd: r, Paths: []string{"web/src/app.ts"}}
	for range 2 {
		res, err := Handle(context.Background(), Claude, tool, opts)
		if err != nil || !strings.Contains(res.Context, filepath.Join(r, "web", "AGENTS.md")) || strings.Contains(res.Context, "<agents_context") {
			t.Fatalf("tool without state: %+v, %v", res, err)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }
