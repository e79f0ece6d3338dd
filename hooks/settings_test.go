package hooks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// testProgram is an installed binary's absolute path, as install writes it.
const testProgram = "/opt/lineage/bin/lineage"

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
		if h == Opencode {
			continue // a plugin file of lineage's own (opencode_test.go)
		}
		for name, before := range settingsCases {
			t.Run(h.Name+"/"+name, func(t *testing.T) {
				once, err := h.Install([]byte(before), testProgram, Flags{})
				if err != nil {
					t.Fatal(err)
				}
				if !jsontext.Value(once).IsValid() {
					t.Fatalf("install wrote invalid JSON:\n%s", once)
				}
				twice, err := h.Install(once, testProgram, Flags{})
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(once, twice) {
					t.Errorf("second install changed the file:\n%s", Diff("settings.json", once, twice))
				}
				if n, want := strings.Count(string(once), h.Command(testProgram, Flags{})), len(h.groups("", Flags{})); n != want {
					t.Errorf("installed %d commands, want %d:\n%s", n, want, once)
				}
				// Every byte of the original is still there, in order:
				// install only inserted.
				if !isSubsequence([]byte(before), once) {
					t.Errorf("install removed or reordered bytes:\n%s", Diff("settings.json", []byte(before), once))
				}
				back, err := h.Uninstall(once, testProgram)
				if err != nil {
					t.Fatal(err)
				}
				want := before
				switch name {
				case "missing":
					want = "{}\n"
					if h.Flat {
						want = "{\n  \"version\": 1\n}\n"
					}
				case "unusual-order":
					if h == Cursor {
						// Cursor's events are not Claude Code's.
						break
					}
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
	once, err := Claude.Install(nil, "lineage", Flags{})
	if err != nil {
		t.Fatal(err)
	}
	withSlug, err := Claude.Install(once, "lineage", Flags{Slug: "coder"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(withSlug), "lineage hook claude") != 3 || strings.Count(string(withSlug), "--slug coder") != 3 {
		t.Errorf("reinstall with a slug:\n%s", withSlug)
	}
}

func TestUninstallKeepsAForeignHookInOurGroup(t *testing.T) {
	in := `{"hooks": {"PostToolUse": [{"matcher": "Read", "hooks": [
  {"type": "command", "command": "lineage hook claude"},
  {"type": "command", "command": "lineage-hook-claude-lookalike"},
  {"type": "command", "command": "lineage hook claudette"}]}]}}`
	out, err := Claude.Uninstall([]byte(in), testProgram)
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
		"{\n\"a\": 1,\n\"b\": }":          "line 3, column 6: invalid character '}' at start of value",
		"{\"a\": 1,\n \"a\": 2}":          `line 2, column 2: duplicate key "/a"`,
		"{\"a\": \"x":                     "line 1, column 9: unexpected EOF",
		`{} {}`:                           "more than one JSON value",
	} {
		_, err := Claude.Install([]byte(in), testProgram, Flags{})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "jsontext") {
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
		got, err := tt.h.SettingsPath(tt.scope, Env{Home: home}, proj)
		if err != nil || got != filepath.FromSlash(tt.want) {
			t.Errorf("%s %s: %q, %v; want %q", tt.h.Name, tt.scope, got, err, tt.want)
		}
	}
	if _, err := Gemini.SettingsPath("local", Env{Home: home}, proj); err == nil || !strings.Contains(err.Error(), "no local settings scope") {
		t.Errorf("gemini local: %v", err)
	}
	if _, err := Claude.SettingsPath("user", Env{}, proj); err == nil {
		t.Error("user scope without a home directory was accepted")
	}
	// Each harness's own variable moves its user scope.
	vars := map[string]string{"CLAUDE_CONFIG_DIR": "/cfg/claude", "GEMINI_CLI_HOME": "/cfg/gh", "CODEX_HOME": "/cfg/codex"}
	env := Env{Home: home, Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
	for h, want := range map[*Harness]string{Claude: "/cfg/claude/settings.json", Gemini: "/cfg/gh/.gemini/settings.json", Codex: "/cfg/codex/hooks.json"} {
		if got, err := h.SettingsPath("user", env, proj); err != nil || got != filepath.FromSlash(want) {
			t.Errorf("%s user scope with %s set: %q, %v; want %q", h.Name, h.ConfigDirVar(), got, err, want)
		}
	}
}

// TestInstallAnotherProgramReplacesOurs: a reinstall from another binary
// (or an old bare-name install) replaces lineage's entries instead of
// adding a second pair; the same program again changes no byte.
func TestInstallAnotherProgramReplacesOurs(t *testing.T) {
	bare, err := Claude.Install(nil, "lineage", Flags{})
	if err != nil {
		t.Fatal(err)
	}
	full, err := Claude.Install(bare, "'/home/u/my tools/lineage'", Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(full), `"command": "'/home/u/my tools/lineage' hook claude"`) != 3 || strings.Contains(string(full), `"lineage hook claude"`) {
		t.Errorf("reinstall from a full path:\n%s", full)
	}
	again, err := Claude.Install(full, "'/home/u/my tools/lineage'", Flags{})
	if err != nil || !bytes.Equal(again, full) {
		t.Errorf("second install changed the file (%v):\n%s", err, Diff("settings.json", full, again))
	}
}

// TestUninstallFindsEveryInstallOfOurs: uninstall run from any binary
// removes entries running lineage by a bare name, by a full path (quoted
// or not, POSIX or Windows), or the program it is given, and nothing else.
func TestUninstallFindsEveryInstallOfOurs(t *testing.T) {
	ours := []string{
		"lineage hook claude",
		"lineage hook claude --slug coder",
		"/usr/local/bin/lineage hook claude",
		"'/home/u/my tools/lineage' hook claude",
		`"/home/u/my tools/lineage"  hook  claude`,
		`/home/u/my\ tools/lineage hook claude`,
		`C:\Users\u\bin\lineage.exe hook claude`,
		`"C:\Program Files\lineage\LINEAGE.EXE" hook claude`,
		"/nix/store/abc-lineage-1.0/bin/lineage hook claude",
		"/tmp/build/lineage-dev hook claude", // the program this uninstall is given
	}
	foreign := []string{
		"lineage hook claudette",
		"lineage hook gemini",
		"lineage-hook-claude-lookalike",
		"/usr/bin/lineage-old hook claude",
		"/usr/bin/lineage hooks claude",
		"/tmp/build/lineage-devx hook claude",
		"lineage instructions explain",
		"echo lineage hook claude",
		"'unterminated",
		"",
	}
	var b strings.Builder
	b.WriteString(`{"hooks": {"PostToolUse": [{"matcher": "Read", "hooks": [`)
	for i, c := range append(slices.Clone(ours), foreign...) {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n  {\"type\": \"command\", \"command\": %q}", c)
	}
	b.WriteString("]}]}}")
	out, err := Claude.Uninstall([]byte(b.String()), "/tmp/build/lineage-dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ours {
		if q := fmt.Sprintf("%q", c); strings.Contains(string(out), q) {
			t.Errorf("uninstall kept %s", q)
		}
	}
	for _, c := range foreign {
		if q := fmt.Sprintf("%q", c); !strings.Contains(string(out), q) {
			t.Errorf("uninstall removed %s", q)
		}
	}
}

func TestProgramWord(t *testing.T) {
	for _, tt := range []struct{ path, goos, want string }{
		{"/home/u/src/lineage/bin/lineage", "linux", "/home/u/src/lineage/bin/lineage"},
		{"/Users/u/my tools/lineage", "darwin", "'/Users/u/my tools/lineage'"},
		{"/tmp/it's/lineage", "linux", `'/tmp/it'\''s/lineage'`},
		{"/opt/$HOME/lineage", "linux", "'/opt/$HOME/lineage'"},
		{`C:\Users\u\bin\lineage.exe`, "windows", `C:\Users\u\bin\lineage.exe`},
		{`C:\Program Files\lineage\lineage.exe`, "windows", `"C:\Program Files\lineage\lineage.exe"`},
	} {
		got := ProgramWord(tt.path, tt.goos)
		if got != tt.want {
			t.Errorf("ProgramWord(%q, %s) = %s, want %s", tt.path, tt.goos, got, tt.want)
		}
		// Whatever the quoting, uninstall recognises the result as ours.
		if !Claude.isOurs(Claude.Command(got, Flags{}), "") {
			t.Errorf("%s hook claude is not recognised as lineage's", got)
		}
	}
}

func TestRunningProgramIsAbsolute(t *testing.T) {
	p, err := RunningProgram()
	if err != nil {
		t.Fatal(err)
	}
	word, rest := firstWord(p)
	if rest != "" || !filepath.IsAbs(word) {
		t.Errorf("RunningProgram() = %q: want one absolute path", p)
	}
	if _, err := os.Stat(word); err != nil {
		t.Errorf("RunningProgram() = %q: %v", p, err)
	}
}
