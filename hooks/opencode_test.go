package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/internal/platformtest"
)

func TestOpencodeInstallIsIdempotentAndRefusesOthers(t *testing.T) {
	once, err := Opencode.Install(nil, "'/opt/my lineage/lineage'", Flags{FileNames: "AGENTS.md,CLAUDE.md", Slug: "me"})
	if err != nil {
		t.Fatal(err)
	}
	if !isOpencodePlugin(once) {
		t.Fatalf("the plugin lacks its marker:\n%s", once)
	}
	want := `const command = ["/opt/my lineage/lineage","hook","opencode","--slug","me","--file-names","AGENTS.md,CLAUDE.md"]`
	if !strings.Contains(string(once), "\n"+want+"\n") {
		t.Errorf("the plugin's command line is not %s:\n%s", want, once)
	}
	if got := opencodeInstalled(once); got != "'/opt/my lineage/lineage' hook opencode --slug me --file-names AGENTS.md,CLAUDE.md" {
		t.Errorf("status reads the command as %q", got)
	}
	twice, err := Opencode.Install(once, "'/opt/my lineage/lineage'", Flags{FileNames: "AGENTS.md,CLAUDE.md", Slug: "me"})
	if err != nil || string(twice) != string(once) {
		t.Errorf("a second install changed the plugin (%v)", err)
	}
	other, err := Opencode.Install(once, "lineage", Flags{})
	if err != nil || !strings.Contains(string(other), `const command = ["lineage","hook","opencode"]`) {
		t.Errorf("an install with another command did not replace lineage's plugin (%v)", err)
	}
	mine := []byte("export const Mine = async () => ({})\n")
	if _, err := Opencode.Install(mine, "lineage", Flags{}); !errors.Is(err, ErrNotOurs) {
		t.Errorf("install over a user's own plugin: %v, want ErrNotOurs", err)
	}
	if _, err := Opencode.Uninstall(mine, ""); !errors.Is(err, ErrNotOurs) {
		t.Errorf("uninstall of a user's own plugin: %v, want ErrNotOurs", err)
	}
	if _, err := Opencode.Uninstall(once, ""); err != nil {
		t.Errorf("uninstall of lineage's plugin: %v", err)
	}
	if _, err := Opencode.Install(nil, "lineage", Flags{Record: true}); err == nil {
		t.Error("--record was accepted for opencode")
	}
	if opencodeInstalled(mine) != "" {
		t.Error("a user's plugin read as lineage's")
	}
}

func TestOpencodePluginPaths(t *testing.T) {
	home := t.TempDir()
	env := Env{Home: home}
	got, err := Opencode.SettingsPath(ScopeUser, env, "proj")
	if want := filepath.Join(home, ".config", "opencode", "plugins", "lineage.js"); err != nil || got != want {
		t.Errorf("user scope: %q %v, want %q", got, err, want)
	}
	xdg := filepath.Join(home, "xdg")
	env.Lookup = func(k string) (string, bool) { return xdg, k == "XDG_CONFIG_HOME" }
	got, _ = Opencode.SettingsPath(ScopeUser, env, "proj")
	if want := filepath.Join(xdg, "opencode", "plugins", "lineage.js"); got != want {
		t.Errorf("user scope with XDG_CONFIG_HOME: %q, want %q", got, want)
	}
	got, _ = Opencode.SettingsPath(ScopeProject, env, "proj")
	if want := filepath.Join("proj", ".opencode", "plugins", "lineage.js"); got != want {
		t.Errorf("project scope: %q, want %q", got, want)
	}
	if _, err := Opencode.SettingsPath(ScopeLocal, env, "proj"); err == nil {
		t.Error("local scope accepted")
	}
}

func TestOpencodeNative(t *testing.T) {
	dir := t.TempDir()
	platformtest.WriteTree(t, dir, map[string]string{
		"outer/AGENTS.md":              "above the repository",
		"outer/repo/.git/HEAD":         "ref: refs/heads/main\n",
		"outer/repo/CLAUDE.md":         "root claude",
		"outer/repo/web/AGENTS.md":     "web",
		"outer/repo/web/CLAUDE.md":     "web claude",
		"outer/repo/web/src/app.ts":    "x",
		"outer/repo/api/CONTEXT.md":    "api",
		"outer/repo/api/h.go":          "package api",
		"outer/repo/web/src/CLAUDE.md": "src claude",
	})
	repo := filepath.Join(dir, "outer", "repo")
	n := NativeView(Opencode, filepath.Join(repo, "web"), Env{Home: dir})
	// From web/ up to the git top: AGENTS.md is found (web/AGENTS.md), so
	// no CLAUDE.md is loaded, and nothing above the repository.
	if !n.Loaded(filepath.Join(repo, "web", "AGENTS.md")) || n.Loaded(filepath.Join(repo, "CLAUDE.md")) || n.Loaded(filepath.Join(dir, "outer", "AGENTS.md")) {
		t.Errorf("loaded: %v", n.files)
	}
	n = NativeView(Opencode, repo, Env{Home: dir})
	if !n.Loaded(filepath.Join(repo, "CLAUDE.md")) {
		t.Errorf("at the root, CLAUDE.md (the first name found) is not loaded: %v", n.files)
	}
	off := NativeView(Opencode, repo, Env{Home: dir, Lookup: func(k string) (string, bool) { return "1", k == "OPENCODE_DISABLE_CLAUDE_CODE" }})
	if off.Loaded(filepath.Join(repo, "CLAUDE.md")) || slices.Contains(off.Names, "CLAUDE.md") {
		t.Errorf("with OPENCODE_DISABLE_CLAUDE_CODE, CLAUDE.md still loaded: %v %v", off.Names, off.files)
	}
	// The read tool attaches, per directory below the cwd, the first name
	// found: web/AGENTS.md, not web/CLAUDE.md; src/CLAUDE.md (no AGENTS.md
	// there); never on an edit.
	app := filepath.Join(repo, "web", "src", "app.ts")
	for _, c := range []struct {
		tool, file string
		want       Attach
	}{
		{"read", filepath.Join(repo, "web", "AGENTS.md"), Attached},
		{"read", filepath.Join(repo, "web", "CLAUDE.md"), NotAttached},
		{"read", filepath.Join(repo, "web", "src", "CLAUDE.md"), Attached},
		{"edit", filepath.Join(repo, "web", "AGENTS.md"), NotAttached},
		{"read", filepath.Join(repo, "CLAUDE.md"), NotAttached},
	} {
		if got := n.Attached(c.tool, app, repo, c.file); got != c.want {
			t.Errorf("%s of app.ts attaches %s: %v, want %v", c.tool, c.file, got, c.want)
		}
	}
	global := filepath.Join(dir, ".config", "opencode", "AGENTS.md")
	if err := os.MkdirAll(filepath.Dir(global), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(global, []byte("global"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := NativeView(Opencode, repo, Env{Home: dir}); !n.Loaded(global) {
		t.Errorf("the global AGENTS.md is not loaded")
	}
}

func TestOpencodeEvents(t *testing.T) {
	cwd := t.TempDir()
	for _, c := range []struct {
		json  string
		kind  Kind
		paths []string
	}{
		{`{"hook_event_name":"session.start","session_id":"s","cwd":CWD,"source":"startup"}`, Start, nil},
		{`{"hook_event_name":"tool.execute.after","session_id":"s","cwd":CWD,"tool_name":"read","tool_input":{"filePath":"a/b.ts","offset":3}}`, Tool, []string{"a/b.ts"}},
		{`{"hook_event_name":"tool.execute.after","session_id":"s","cwd":CWD,"tool_name":"grep","tool_input":{"pattern":"x","path":"web"}}`, Tool, []string{"web"}},
		{`{"hook_event_name":"tool.execute.after","session_id":"s","cwd":CWD,"tool_name":"apply_patch","tool_input":{"patchText":"*** Begin Patch\n*** Update File: api/h.go\n@@\n-a\n+b\n*** End Patch"}}`, Tool, []string{"api/h.go"}},
		{`{"hook_event_name":"tool.execute.after","session_id":"s","cwd":CWD,"tool_name":"bash","tool_input":{"command":"ls"}}`, Ignored, nil},
		{`{"hook_event_name":"session.compacting","session_id":"s","cwd":CWD}`, Compact, nil},
	} {
		data := strings.Replace(c.json, "CWD", jsonQuote(cwd), 1)
		ev, err := Opencode.ParseEvent([]byte(data))
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if ev.Kind != c.kind || !slices.Equal(ev.Paths, c.paths) {
			t.Errorf("%s: kind %v paths %q, want %v %q", data, ev.Kind, ev.Paths, c.kind, c.paths)
		}
	}
	if _, err := Opencode.ParseEvent([]byte(`{"hook_event_name":"tool.execute.after","session_id":"s","cwd":` + jsonQuote(cwd) + `,"tool_name":"read","tool_input":{"filePath":3}}`)); err == nil || !strings.Contains(err.Error(), "/tool_input/filePath: want a string, got a number") {
		t.Errorf("a number for filePath: %v", err)
	}
	out, err := Opencode.Output(Event{}, "text \"quoted\"")
	if err != nil || string(out) != `{"context":"text \"quoted\""}`+"\n" {
		t.Errorf("output %q %v", out, err)
	}
	if out, _ := Opencode.Output(Event{}, ""); out != nil {
		t.Errorf("empty context printed %q", out)
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// FuzzOpencodePlugin: whatever file is at the plugin's path, install
// either refuses it (not lineage's) or writes lineage's plugin, whose
// command reads back as the program's path; reading any file never
// panics.
func FuzzOpencodePlugin(f *testing.F) {
	plugin, _ := Opencode.Install(nil, "lineage", Flags{})
	f.Add([]byte(""), "/usr/bin/lineage")
	f.Add(plugin, "/home/u/my tools/lineage")
	f.Add([]byte("export const Mine = async () => ({})\n"), "lineage")
	f.Add([]byte(opencodeMarker+"\nconst command = [1,\"x\"]\n"), `C:\Program Files\lineage.exe`)
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		_ = opencodeInstalled(data)
		if path == "" || strings.ContainsAny(path, "\x00\r\n") || !utf8.ValidString(path) {
			return
		}
		out, err := Opencode.Install(data, ProgramWord(path, "linux"), Flags{})
		if err != nil {
			if !errors.Is(err, ErrNotOurs) || isOpencodePlugin(data) {
				t.Fatalf("install over %q: %v", data, err)
			}
			return
		}
		word, _ := firstWord(opencodeInstalled(out))
		if word != path {
			t.Fatalf("the plugin for %q reads back %q", path, word)
		}
		if _, err := Opencode.Uninstall(out, ""); err != nil {
			t.Fatal(err)
		}
	})
}
