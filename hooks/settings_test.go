package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// settingsCases are files a user may already have.
var settingsCases = map[string]string{
	"missing":   "",
	"empty-obj": "{}\n",
	"other-hooks": `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [{"type": "command", "command": "gofmt -w \"$CLAUDE_PROJECT_DIR\""}]
      }
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
  },
  "model": "opus"
}
`,
	"unusual-order": "{\n\t\"zeta\": 1,\n\t\"hooks\": {\"SessionStart\": []},\n\t\"alpha\": [3, 2, 1],\n\t\"env\": {\"B\": \"2\", \"A\": \"1\"}\n}",
	"compact":       `{"b":true,"a":{"x":null}}`,
	"crlf":          "{\r\n    \"theme\": \"dark\"\r\n}\r\n",
}

func TestInstallKeepsOtherBytesAndIsIdempotent(t *testing.T) {
	for _, h := range Harnesses() {
		for name, before := range settingsCases {
			t.Run(h.Name+"/"+name, func(t *testing.T) {
				once, err := h.Install([]byte(before), "")
				if err != nil {
					t.Fatal(err)
				}
				if !jsontext.Value(once).IsValid() {
					t.Fatalf("install wrote invalid JSON:\n%s", once)
				}
				twice, err := h.Install(once, "")
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(once, twice) {
					t.Errorf("second install changed the file:\n%s", Diff("settings.json", once, twice))
				}
				if n := strings.Count(string(once), h.Command("")); n != 2 {
					t.Errorf("installed %d commands, want 2:\n%s", n, once)
				}
				// Every byte of the original is still there, in order:
				// install only inserted.
				if !isSubsequence([]byte(before), once) {
					t.Errorf("install removed or reordered bytes:\n%s", Diff("settings.json", []byte(before), once))
				}
				back, err := h.Uninstall(once)
				if err != nil {
					t.Fatal(err)
				}
				want := before
				switch name {
				case "missing":
					want = "{}\n"
				case "unusual-order":
					// The empty SessionStart array install filled is
					// lineage's after uninstall: nothing tells it apart
					// from one install created, so it goes.
					want = strings.Replace(before, "\t\"hooks\": {\"SessionStart\": []},\n", "", 1)
				}
				if string(back) != want {
					t.Errorf("uninstall did not restore the file:\n%s", Diff("settings.json", []byte(want), back))
				}
			})
		}
	}
}

func isSubsequence(a, b []byte) bool {
	i := 0
	for j := 0; j < len(b) && i < len(a); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}

func TestInstallReplacesAnOlderEntry(t *testing.T) {
	once, err := Claude.Install(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	withSlug, err := Claude.Install(once, "coder")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(withSlug), "lineage hook claude") != 2 || strings.Count(string(withSlug), "--slug coder") != 2 {
		t.Errorf("reinstall with a slug:\n%s", withSlug)
	}
}

func TestUninstallKeepsAForeignHookInOurGroup(t *testing.T) {
	in := `{"hooks": {"PostToolUse": [{"matcher": "Read", "hooks": [
  {"type": "command", "command": "lineage hook claude"},
  {"type": "command", "command": "lineage-hook-claude-lookalike"},
  {"type": "command", "command": "lineage hook claudette"}]}]}}`
	out, err := Claude.Uninstall([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hooks": {"PostToolUse": [{"matcher": "Read", "hooks": [
  {"type": "command", "command": "lineage-hook-claude-lookalike"},
  {"type": "command", "command": "lineage hook claudette"}]}]}}`
	if string(out) != want {
		t.Errorf("uninstall =\n%s\nwant\n%s", out, want)
	}
}

func TestInstallErrors(t *testing.T) {
	for in, want := range map[string]string{
		`[1]`:                             "not a JSON object",
		`{"hooks": [1]}`:                  `"hooks" is not an object`,
		`{"hooks": {"SessionStart": {}}}`: `"hooks.SessionStart" is not an array`,
		"{\n\"a\": 1,\n\"b\": }":          "line 3",
		`{} {}`:                           "more than one JSON value",
	} {
		_, err := Claude.Install([]byte(in), "")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Install(%s) error = %v, want %q", in, err, want)
		}
	}
}

func TestSettingsPath(t *testing.T) {
	home, proj := filepath.FromSlash("/home/u"), filepath.FromSlash("/src/p")
	for _, tt := range []struct {
		h     *Harness
		scope string
		want  string
	}{
		{Claude, "user", "/home/u/.claude/settings.json"},
		{Claude, "project", "/src/p/.claude/settings.json"},
		{Claude, "local", "/src/p/.claude/settings.local.json"},
		{Gemini, "user", "/home/u/.gemini/settings.json"},
		{Gemini, "project", "/src/p/.gemini/settings.json"},
		{Codex, "user", "/home/u/.codex/hooks.json"},
		{Codex, "project", "/src/p/.codex/hooks.json"},
	} {
		got, err := tt.h.SettingsPath(tt.scope, home, proj)
		if err != nil || got != filepath.FromSlash(tt.want) {
			t.Errorf("%s %s: %q, %v; want %q", tt.h.Name, tt.scope, got, err, tt.want)
		}
	}
	if _, err := Gemini.SettingsPath("local", home, proj); err == nil || !strings.Contains(err.Error(), "no local settings scope") {
		t.Errorf("gemini local: %v", err)
	}
	if _, err := Claude.SettingsPath("user", "", proj); err == nil {
		t.Error("user scope without a home directory was accepted")
	}
	_ = os.Getenv
}
