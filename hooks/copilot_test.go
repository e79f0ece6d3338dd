package hooks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/internal/platformtest"
)

const (
	copilotSession = "c07748c7-3784-4f59-b239-50de3029e203"
	copilotAgent   = "90958bf3-6086-4075-95c4-9bf72800018e"
)

// TestCopilotEvents: the events Copilot CLI 1.0.102 sent (captured), each
// read with its meaning, session and agent: a subagent's events belong to
// the parent's session and the subagent's own agent state, whether they
// name the parent as sessionId (SubagentStart) or the subagent's own id as
// session_id beside parent_agent_id (its tool events).
func TestCopilotEvents(t *testing.T) {
	for _, tt := range []struct {
		file   string
		kind   Kind
		agent  string
		paths  []string
		output bool
	}{
		{"copilot-session-start.json", Start, "", nil, true},
		{"copilot-session-start-resume.json", Resume, "", nil, true},
		{"copilot-user-prompt-submit.json", Prompt, "", nil, true},
		{"copilot-post-tool-use-read.json", Tool, "", []string{abs("/path/to/project/src/main.ts")}, true},
		{"copilot-post-tool-use-write.json", Tool, "", []string{abs("/path/to/project/api/new.go")}, true},
		{"copilot-subagent-start.json", Start, copilotAgent, nil, true},
		{"copilot-subagent-post-tool-use-read.json", Tool, copilotAgent, []string{abs("/path/to/project/src/main.ts")}, true},
		// Its answer is not read: a silent start (the start's text outlives
		// the compaction; the reminders do not).
		{"copilot-pre-compact.json", Start, "", nil, false},
	} {
		ev, err := Copilot.ParseEvent(documented(t, tt.file))
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		if ev.Silent == tt.output {
			t.Errorf("%s: silent %v", tt.file, ev.Silent)
		}
		if ev.Kind != tt.kind || ev.SessionID != copilotSession || ev.AgentID != tt.agent || !slices.Equal(ev.Paths, tt.paths) || ev.Cwd != abs("/path/to/project") {
			t.Errorf("%s = kind %d session %q agent %q paths %q cwd %q, want kind %d session %q agent %q paths %q",
				tt.file, ev.Kind, ev.SessionID, ev.AgentID, ev.Paths, ev.Cwd, tt.kind, copilotSession, tt.agent, tt.paths)
		}
	}
	// The answer is a top-level additionalContext, whatever the event.
	ev, _ := Copilot.ParseEvent(documented(t, "copilot-post-tool-use-read.json"))
	if out, _ := Copilot.Output(ev, "x <y>"); string(out) != `{"additionalContext":"x <y>"}`+"\n" {
		t.Errorf("Copilot CLI's answer = %s", out)
	}
	if out, _ := Copilot.Output(ev, ""); out != nil {
		t.Errorf("an empty answer = %q, want nothing", out)
	}
	// Its shell and other tools name no paths; the task tool none either.
	for _, tool := range []string{"Bash", "bash", "Agent", "task", "grep"} {
		ev, err := Copilot.ParseEvent([]byte(`{"hook_event_name":"PostToolUse","session_id":"s","cwd":` + quote(abs("/r")) + `,"tool_name":"` + tool + `","tool_input":{"path":"a.go","command":"ls"}}`))
		if err != nil || ev.Kind != Ignored {
			t.Errorf("PostToolUse of %s = %+v, %v; want ignored", tool, ev, err)
		}
	}
	if _, err := Copilot.ParseEvent([]byte(`{"hook_event_name":"PostToolUse","session_id":"s","cwd":` + quote(abs("/r")) + `,"tool_name":"Read","tool_input":{"path":7}}`)); err == nil || !strings.Contains(err.Error(), "at /tool_input/path: want a string, got a number") {
		t.Errorf("a number as the path: %v", err)
	}
}

// TestCopilotNative: Copilot CLI loads AGENTS.md, CLAUDE.md and GEMINI.md
// of the cwd and every directory up to the repository root, and
// .github/copilot-instructions.md; after its view tool (Read) it attaches
// the nested AGENTS.md itself, after create and edit nothing.
func TestCopilotNative(t *testing.T) {
	dir := t.TempDir()
	platformtest.WriteTree(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n", "AGENTS.md": "a", "CLAUDE.md": "c", ".github/copilot-instructions.md": "g",
		"svc/AGENTS.md": "s", "svc/web/AGENTS.md": "w", "svc/web/CLAUDE.md": "wc", "svc/web/app.ts": "x",
	})
	cwd := filepath.Join(dir, "svc")
	n := NativeView(Copilot, cwd, Env{Home: t.TempDir()})
	for _, p := range []string{"AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md", "svc/AGENTS.md"} {
		if !n.Loaded(filepath.Join(dir, p)) {
			t.Errorf("%s not loaded by Copilot CLI", p)
		}
	}
	if n.Loaded(filepath.Join(dir, "svc", "web", "AGENTS.md")) {
		t.Errorf("a file below the cwd counted as loaded at start")
	}
	app := filepath.Join(dir, "svc", "web", "app.ts")
	for _, tt := range []struct {
		tool, file string
		want       Attach
	}{
		{"Read", "svc/web/AGENTS.md", Attached},
		{"view", "svc/web/AGENTS.md", Attached},
		{"Read", "svc/web/CLAUDE.md", MaybeAttached},
		{"Write", "svc/web/AGENTS.md", NotAttached},
		{"Edit", "svc/web/AGENTS.md", NotAttached},
	} {
		if got := n.Attached(tt.tool, app, cwd, filepath.Join(dir, tt.file)); got != tt.want {
			t.Errorf("after %s, %s: %d, want %d", tt.tool, tt.file, got, tt.want)
		}
	}
	// Outside a repository: the cwd alone.
	bare := t.TempDir()
	platformtest.WriteTree(t, bare, map[string]string{"AGENTS.md": "a", "sub/AGENTS.md": "s"})
	n = NativeView(Copilot, filepath.Join(bare, "sub"), Env{Home: t.TempDir()})
	if !n.Loaded(filepath.Join(bare, "sub", "AGENTS.md")) || n.Loaded(filepath.Join(bare, "AGENTS.md")) {
		t.Errorf("without a repository Copilot CLI reads the cwd alone: %v", n.files)
	}
	// Started with --no-custom-instructions (on the command line of a
	// process above the hook, before any "--"), Copilot CLI loads and
	// attaches nothing.
	for _, c := range []struct {
		args [][]string
		off  bool
	}{
		{[][]string{{"sh", "-c", "lineage hook copilot"}, {"copilot", "-p", "x", "--no-custom-instructions"}}, true},
		{[][]string{{"copilot", "-p", "--", "--no-custom-instructions"}}, false},
		{[][]string{{"--no-custom-instructions"}}, false},
		{nil, false},
	} {
		n := NativeView(Copilot, cwd, Env{Home: t.TempDir(), ParentArgs: func() [][]string { return c.args }})
		if off := !n.Loaded(filepath.Join(dir, "AGENTS.md")) && n.Attached("view", app, cwd, filepath.Join(dir, "svc", "web", "AGENTS.md")) == NotAttached; off != c.off {
			t.Errorf("parents %q: custom instructions off = %v, want %v", c.args, off, c.off)
		}
	}
}

// TestCopilotInstall: lineage's own file in Copilot CLI's hooks folder,
// one flat command entry per event; a second install changes nothing and
// uninstall leaves only the version.
func TestCopilotInstall(t *testing.T) {
	home := t.TempDir()
	env := Env{Home: home}
	for scope, want := range map[string]string{
		ScopeUser:    filepath.Join(home, ".copilot", "hooks", "lineage.json"),
		ScopeProject: filepath.Join(abs("/p"), ".github", "hooks", "lineage.json"),
	} {
		if got, err := Copilot.SettingsPath(scope, env, abs("/p")); err != nil || got != want {
			t.Errorf("%s scope: %s, %v; want %s", scope, got, err, want)
		}
	}
	env.Lookup = func(k string) (string, bool) {
		return map[string]string{"COPILOT_HOME": abs("/c")}[k], k == "COPILOT_HOME"
	}
	if got, _ := Copilot.SettingsPath(ScopeUser, env, ""); got != filepath.Join(abs("/c"), "hooks", "lineage.json") {
		t.Errorf("COPILOT_HOME not followed: %s", got)
	}
	if _, err := Copilot.SettingsPath(ScopeLocal, env, abs("/p")); err == nil {
		t.Errorf("Copilot CLI has no local scope")
	}
	once, err := Copilot.Install(nil, "lineage", Flags{})
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Matcher string `json:"matcher"`
	}
	var doc struct {
		Version int                `json:"version"`
		Hooks   map[string][]entry `json:"hooks"`
	}
	if err := json.Unmarshal(once, &doc); err != nil {
		t.Fatal(err)
	}
	var events []string
	for e, entries := range doc.Hooks {
		events = append(events, e)
		if len(entries) != 1 || entries[0].Type != "command" || entries[0].Command != "lineage hook copilot" {
			t.Errorf("%s: %+v", e, entries)
		}
	}
	slices.Sort(events)
	if doc.Version != 1 || !slices.Equal(events, []string{"PostToolUse", "PreCompact", "SessionStart", "SubagentStart", "UserPromptSubmit"}) {
		t.Errorf("installed version %d, events %v", doc.Version, events)
	}
	if m := doc.Hooks["PostToolUse"][0].Matcher; m != "Read|Write|Edit|view|create|edit" {
		t.Errorf("PostToolUse matcher %q", m)
	}
	twice, _ := Copilot.Install(once, "lineage", Flags{})
	if string(twice) != string(once) {
		t.Errorf("a second install changed the file:\n%s", Diff("lineage.json", once, twice))
	}
	gone, err := Copilot.Uninstall(once, "lineage")
	if err != nil || strings.TrimSpace(string(gone)) != "{\n  \"version\": 1\n}" {
		t.Errorf("uninstall left %q, %v", gone, err)
	}
}

// FuzzCopilotEvent: any event is read without a panic, and one that is
// accepted is one lineage can answer: an absolute cwd, a session, a tool
// event with paths, a subagent event with its agent.
func FuzzCopilotEvent(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "events", "copilot-*.json"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Copilot.ParseEvent(data)
		if err != nil {
			return
		}
		if !filepath.IsAbs(ev.Cwd) || ev.SessionID == "" || ev.Kind == Tool && len(ev.Paths) == 0 {
			t.Fatalf("accepted %q as %+v", data, ev)
		}
		if ev.Name == copilotSubagentEvent && ev.Kind == Start && ev.AgentID == "" {
			t.Fatalf("a subagent start without its agent: %+v", ev)
		}
		out, err := Copilot.Output(ev, "x")
		if err != nil {
			t.Fatal(err)
		}
		var answer struct {
			AdditionalContext string `json:"additionalContext"`
		}
		if err := json.Unmarshal(out, &answer); err != nil || answer.AdditionalContext != "x" {
			t.Fatalf("answer %q: %v", out, err)
		}
	})
}
