package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// abs is the absolute path a harness on this OS sends for the Unix path p:
// p itself, and on Windows p on drive C: with backslashes (a Claude Code
// event there has "cwd": "C:\\Users\\...").
func abs(p string) string {
	if runtime.GOOS == "windows" {
		return "C:" + filepath.FromSlash(p)
	}
	return p
}

// quote is s as a JSON string.
func quote(s string) string {
	b, err := jsontext.AppendQuote(nil, s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// unixAbs matches a JSON string holding an absolute Unix path.
var unixAbs = regexp.MustCompile(`"/[^"\\]*"`)

// documented reads an event fixture as the harness documents it, and on
// Windows as the harness writes it there: its absolute paths as abs makes
// them, JSON-escaped.
func documented(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "events", file))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		return data
	}
	return unixAbs.ReplaceAllFunc(data, func(m []byte) []byte {
		return []byte(quote(abs(string(m[1 : len(m)-1]))))
	})
}

func TestParseDocumentedEvents(t *testing.T) {
	for _, tt := range []struct {
		file  string
		h     *Harness
		kind  Kind
		paths []string
	}{
		{"claude-session-start.json", Claude, Start, nil},
		{"claude-session-start-compact.json", Claude, Start, nil},
		{"claude-post-tool-use-write.json", Claude, Tool, []string{abs("/path/to/file.txt")}},
		{"claude-post-tool-use-read.json", Claude, Tool, []string{abs("/path/to/src/main.go")}},
		{"gemini-session-start.json", Gemini, Start, nil},
		{"gemini-before-tool-write-file.json", Gemini, Ignored, nil},
		{"gemini-after-tool-read-file.json", Gemini, Tool, []string{"pkg/util/strings.go"}},
		{"gemini-after-tool-read-many-files.json", Gemini, Tool, []string{"docs/guide.md", "web/src/"}},
		{"codex-session-start.json", Codex, Start, nil},
		{"codex-post-tool-use-apply-patch.json", Codex, Tool, []string{"services/api/handler.go", "web/new.ts"}},
		{"cursor-session-start.json", Cursor, Start, nil},
		{"cursor-post-tool-use-read.json", Cursor, Tool, []string{abs("/path/to/project/src/main.ts")}},
		{"cursor-before-read-file.json", Cursor, Ignored, nil},
		{"cursor-pre-compact.json", Cursor, Compact, nil},
		{"cursor-subagent-start.json", Cursor, Compact, nil},
		{"opencode-session-start.json", Opencode, Start, nil},
		{"opencode-tool-read.json", Opencode, Tool, []string{abs("/repo/web/src/app.ts")}},
		{"opencode-subagent-start.json", Opencode, Start, nil},
		{"opencode-subagent-tool-read.json", Opencode, Tool, []string{abs("/repo/web/src/app.ts")}},
		{"opencode-tool-task.json", Opencode, Ignored, nil},
		{"opencode-session-compacting.json", Opencode, Compact, nil},
		// Another harness's event: names that mean nothing here.
		{"gemini-after-tool-read-file.json", Claude, Ignored, nil},
	} {
		ev, err := tt.h.ParseEvent(documented(t, tt.file))
		if err != nil {
			t.Errorf("%s as %s: %v", tt.file, tt.h.Name, err)
			continue
		}
		if ev.Kind != tt.kind || !slices.Equal(ev.Paths, tt.paths) || ev.SessionID == "" {
			t.Errorf("%s as %s: kind %d paths %q, want kind %d paths %q", tt.file, tt.h.Name, ev.Kind, ev.Paths, tt.kind, tt.paths)
		}
	}
}

// TestCursorRunsClaudeEntries: Cursor runs the hook entries of Claude
// Code's settings files too; lineage tells its events from Claude Code's by
// their fields, whatever the event name says.
func TestCursorRunsClaudeEntries(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "events", "*.json"))
	for _, p := range files {
		name := filepath.Base(p)
		if got, want := IsCursorEvent(documented(t, name)), strings.HasPrefix(name, "cursor-"); got != want {
			t.Errorf("IsCursorEvent(%s) = %v, want %v", name, got, want)
		}
	}
	// Claude Code's event name in Cursor's event: Cursor's meaning.
	ev, err := Cursor.ParseEvent([]byte(`{"hook_event_name":"SessionStart","conversation_id":"c","workspace_roots":[` + quote(abs("/r")) + `],"cursor_version":"2.4.21"}`))
	if err != nil || ev.Kind != Start || ev.SessionID != "c" || ev.Cwd != abs("/r") {
		t.Errorf("SessionStart from Cursor = %+v, %v", ev, err)
	}
	out, _ := Cursor.Output(ev, "x")
	if string(out) != `{"additional_context":"x"}`+"\n" {
		t.Errorf("Cursor's answer = %s", out)
	}
	if out, _ := Cursor.Output(Event{Name: "beforeReadFile"}, ""); string(out) != `{"permission":"allow"}`+"\n" {
		t.Errorf("beforeReadFile answer = %s", out)
	}
	if out, _ := Cursor.Output(Event{Name: "preCompact"}, ""); out != nil {
		t.Errorf("preCompact answer = %s", out)
	}
}

func TestParseEventSources(t *testing.T) {
	for src, want := range map[string]Kind{"startup": Start, "clear": Start, "compact": Start, "resume": Resume, "": Start} {
		ev, err := Claude.ParseEvent([]byte(`{"session_id":"s","cwd":` + quote(abs("/r")) + `,"hook_event_name":"SessionStart","source":"` + src + `"}`))
		if err != nil || ev.Kind != want {
			t.Errorf("source %q: kind %d, %v; want %d", src, ev.Kind, err, want)
		}
	}
}

func TestParseEventErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"cwd":"/r","hook_event_name":"SessionStart"}`:                   "Claude Code hook event: session_id is missing",
		`{"session_id":"s","hook_event_name":"SessionStart"}`:             "Claude Code hook event: cwd is missing",
		`{"session_id":"s","cwd":"/r"}`:                                   "Claude Code hook event: hook_event_name is missing",
		`{"session_id":"s","cwd":"rel","hook_event_name":"SessionStart"}`: `Claude Code hook event: cwd "rel" is not an absolute path`,
		// Where and what, in JSON's words: no decoder package, no Go types.
		`{"session_id":1}`: "Claude Code hook event: at /session_id: want a string, got a number",
		`[1]`:              "Claude Code hook event: at the document: want an object, got an array",
		`garbage`:          "Claude Code hook event: line 1, column 1: invalid character 'g' at start of value",
		"":                 "Claude Code hook event: empty: no JSON value",
		" \n":              "Claude Code hook event: empty: no JSON value",
		"{\n  \"session_id\": \"s\",\n  \"cwd\": g}": "Claude Code hook event: line 3, column 10: invalid character 'g' at start of value",
		`{"session_id":"s"`:                          "Claude Code hook event: line 1, column 18: unexpected EOF",
		`{"session_id":"s","session_id":"t"}`:        `Claude Code hook event: line 1, column 19: duplicate key "/session_id"`,
		`{"session_id":"s","cwd":"/r","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"a","x":}}`: "Claude Code hook event: line 1, column 115: invalid character '}' at start of value",
	} {
		_, err := Claude.ParseEvent([]byte(in))
		if err == nil || err.Error() != want {
			t.Errorf("ParseEvent(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestToolPaths(t *testing.T) {
	for _, tt := range []struct {
		h     *Harness
		tool  string
		input string
		want  []string
	}{
		{Claude, "NotebookEdit", `{"notebook_path":` + quote(abs("/n.ipynb")) + `}`, []string{abs("/n.ipynb")}},
		{Claude, "Grep", `{"pattern":"x","path":"src"}`, []string{"src"}},
		{Claude, "Glob", `{"pattern":"**/*.go"}`, nil},
		{Claude, "Bash", `{"command":"cat x"}`, nil},
		{Claude, "MultiEdit", `{"file_path":"a/b.go","edits":[]}`, []string{"a/b.go"}},
		{Gemini, "grep_search", `{"pattern":"x","dir_path":"lib"}`, []string{"lib"}},
		{Gemini, "glob", `{"pattern":"*","path":"old"}`, []string{"old"}},
		{Gemini, "replace", `{"file_path":"r.go","old_string":"a","new_string":"b"}`, []string{"r.go"}},
		{Gemini, "run_shell_command", `{"command":"ls"}`, nil},
		{Codex, "Bash", `{"command":"*** Update File: x"}`, nil},
		// A tool_input that is not an object names no paths.
		{Claude, "Read", `"a.go"`, nil},
		{Claude, "Read", `["a.go"]`, nil},
		{Claude, "Read", `null`, nil},
		{Codex, "apply_patch", `{"command":"*** Begin Patch\r\n*** Delete File: d.go\r\n*** Update File: a.go\r\n*** Move to: b/a.go\r\n*** End Patch"}`, []string{"d.go", "a.go", "b/a.go"}},
	} {
		ev, err := tt.h.ParseEvent([]byte(`{"session_id":"s","cwd":` + quote(abs("/r")) + `,"hook_event_name":"` + tt.h.ToolEvent + `","tool_name":"` + tt.tool + `","tool_input":` + tt.input + `}`))
		if err != nil || !slices.Equal(ev.Paths, tt.want) {
			t.Errorf("%s %s: %q, %v; want %q", tt.h.Name, tt.tool, ev.Paths, err, tt.want)
		}
	}
}

// A path field of the wrong type is an error naming it, like session_id,
// never silently ignored; null counts as absent.
func TestToolPathTypes(t *testing.T) {
	for _, tt := range []struct {
		h           *Harness
		tool, input string
		want        string
	}{
		{Claude, "Read", `{"file_path":42}`, "Claude Code hook event: at /tool_input/file_path: want a string, got a number"},
		{Claude, "Grep", `{"path":["a"]}`, "Claude Code hook event: at /tool_input/path: want a string, got an array"},
		{Gemini, "read_file", `{"file_path":true}`, "Gemini CLI hook event: at /tool_input/file_path: want a string, got a boolean"},
		{Gemini, "read_many_files", `{"include":"docs"}`, "Gemini CLI hook event: at /tool_input/include: want an array of strings, got a string"},
		{Gemini, "read_many_files", `{"include":["a",{}]}`, "Gemini CLI hook event: at /tool_input/include/1: want a string, got an object"},
		{Codex, "apply_patch", `{"command":7}`, "Codex CLI hook event: at /tool_input/command: want a string, got a number"},
		{Claude, "Read", `{"file_path":null}`, ""},
		{Claude, "Bash", `{"command":7}`, ""},
	} {
		_, err := tt.h.ParseEvent([]byte(`{"session_id":"s","cwd":` + quote(abs("/r")) + `,"hook_event_name":"` + tt.h.ToolEvent + `","tool_name":"` + tt.tool + `","tool_input":` + tt.input + `}`))
		if got := fmt.Sprint(err); (tt.want == "" && err != nil) || (tt.want != "" && got != tt.want) {
			t.Errorf("%s %s %s: %v, want %q", tt.h.Name, tt.tool, tt.input, err, tt.want)
		}
	}
}

func TestOutput(t *testing.T) {
	out, err := Gemini.Output(Event{Name: "AfterTool"}, "line\n\"q\"")
	if err != nil || string(out) != `{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"line\n\"q\""}}`+"\n" {
		t.Errorf("Output = %s, %v", out, err)
	}
	if out, _ := Claude.Output(Event{Name: "PostToolUse"}, ""); out != nil {
		t.Errorf("empty context printed %s", out)
	}
}

func FuzzParseEvent(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "events", "*.json"))
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, h := range Harnesses() {
			ev, err := h.ParseEvent(data)
			if err != nil {
				continue
			}
			if !filepath.IsAbs(ev.Cwd) || ev.SessionID == "" || (ev.Kind == Tool && len(ev.Paths) == 0) {
				t.Fatalf("%s accepted %q as %+v", h.Name, data, ev)
			}
			if _, err := h.Output(ev, "x"); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzInstall(f *testing.F) {
	for _, s := range settingsCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		once, err := Claude.Install(data, testProgram, Flags{})
		if err != nil {
			return
		}
		twice, err := Claude.Install(once, testProgram, Flags{})
		if err != nil || string(once) != string(twice) {
			t.Fatalf("second install of %q: %v\n%s", data, err, Diff("s", once, twice))
		}
		if _, err := Claude.Uninstall(once, testProgram); err != nil {
			t.Fatalf("uninstall after install of %q: %v", data, err)
		}
	})
}

// FuzzProgramWord: any path install quotes for a POSIX shell reads back
// as that one word, so uninstall finds what install wrote.
func FuzzProgramWord(f *testing.F) {
	for _, p := range []string{"/usr/bin/lineage", "/home/u/my tools/lineage", "/tmp/it's/lineage", `/a\b"c$d/lineage`, ""} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if path == "" || strings.ContainsAny(path, "\x00\r\n") {
			return
		}
		word, rest := firstWord(ProgramWord(path, "linux") + " hook claude")
		if word != path || rest != " hook claude" {
			t.Fatalf("ProgramWord(%q) reads back as %q, rest %q", path, word, rest)
		}
		if base := path[strings.LastIndexAny(path, `/\`)+1:]; base == "lineage" && !Claude.isOurs(Claude.Command(ProgramWord(path, "linux"), Flags{}), "") {
			t.Fatalf("%q hook claude is not recognised", path)
		}
	})
}
