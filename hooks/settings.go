package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Scopes of a settings file.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
	ScopeLocal   = "local"
)

// SettingsPath is the file the harness reads hooks from at scope: Claude
// Code <config dir>/settings.json, <project>/.claude/settings.json and
// <project>/.claude/settings.local.json; Gemini CLI <home>/.gemini/settings.json
// and <project>/.gemini/settings.json; Codex CLI <codex home>/hooks.json and
// <project>/.codex/hooks.json. The user scope follows each harness's own
// variable: CLAUDE_CONFIG_DIR (else ~/.claude), GEMINI_CLI_HOME (else the
// home directory), CODEX_HOME (else ~/.codex). Gemini CLI and Codex CLI
// have no local scope.
func (h *Harness) SettingsPath(scope string, env Env, project string) (string, error) {
	if h == Opencode {
		return opencodePluginPath(scope, env, project)
	}
	dir, file := "."+h.Name, "settings.json"
	switch h {
	case Codex, Cursor:
		file = "hooks.json"
	case Copilot:
		// Copilot CLI reads every .json file of its hooks folders: lineage
		// keeps its own, so no file of the user's is ever rewritten.
		dir, file = filepath.Join(".github", "hooks"), "lineage.json"
	}
	switch scope {
	case ScopeUser:
		if v := h.ConfigDirVar(); v != "" && env.get(v) != "" {
			return filepath.Join(h.UserDir(env), file), nil
		}
		if env.Home == "" {
			return "", errors.New("no home directory (HOME, or USERPROFILE on Windows, is not set)")
		}
		return filepath.Join(h.UserDir(env), file), nil
	case ScopeProject:
		return filepath.Join(project, dir, file), nil
	case ScopeLocal:
		if h != Claude {
			return "", fmt.Errorf("%s has no local settings scope (use user or project)", h.Title)
		}
		return filepath.Join(project, dir, "settings.local.json"), nil
	}
	return "", fmt.Errorf("unknown scope %q (want user, project or local)", scope)
}

// ConfigDirVar is the environment variable that moves the harness's user
// configuration: CLAUDE_CONFIG_DIR, GEMINI_CLI_HOME, CODEX_HOME.
func (h *Harness) ConfigDirVar() string {
	switch h {
	case Claude:
		return "CLAUDE_CONFIG_DIR"
	case Gemini:
		return "GEMINI_CLI_HOME"
	case Codex:
		return "CODEX_HOME"
	case Copilot:
		return "COPILOT_HOME"
	}
	return ""
}

// ProjectDirVar is the environment variable the harness sets, for the
// hooks it runs, to the project directory its project settings belong to:
// CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR; "" for Codex CLI, which sets
// none (its hooks run in the session's directory).
func (h *Harness) ProjectDirVar() string {
	switch h {
	case Claude:
		return "CLAUDE_PROJECT_DIR"
	case Gemini:
		return "GEMINI_PROJECT_DIR"
	case Copilot:
		return "COPILOT_PROJECT_DIR"
	}
	return ""
}

// UserDir is the harness's user configuration directory.
func (h *Harness) UserDir(env Env) string {
	switch h {
	case Claude:
		return ClaudeConfigDir(env)
	case Gemini:
		return filepath.Join(GeminiHome(env), ".gemini")
	case Codex:
		return CodexHome(env)
	case Cursor:
		return filepath.Join(env.Home, ".cursor")
	case Copilot:
		return filepath.Join(CopilotHome(env), "hooks")
	case Opencode:
		return opencodeConfigDir(env)
	}
	return ""
}

// Flags are the hook command's own flags, written into the installed
// command.
type Flags struct {
	// Slug adds the agent's merged guardrails at session start.
	Slug string
	// FileNames are the instruction file names (comma-separated), as
	// --file-names takes them.
	FileNames string
	// Config is an instructions configuration file (absolute path).
	Config string
	// Record installs the hook on the events that end a turn too, where
	// it appends the session's new transcript records to the user's
	// sessions store.
	Record bool
}

// Command is the command line a harness runs for lineage's hook: program
// (a shell word, as [ProgramWord] makes one; "" means "lineage", found on
// the harness's PATH), then "hook <harness>" and the flags that are set.
func (h *Harness) Command(program string, f Flags) string {
	if program == "" {
		program = "lineage"
	}
	c := program + " hook " + h.Name
	if f.Slug != "" {
		c += " --slug " + shellQuote(f.Slug)
	}
	if f.FileNames != "" {
		c += " --file-names " + shellQuote(f.FileNames)
	}
	if f.Config != "" {
		c += " --config " + shellQuote(f.Config)
	}
	if f.Record {
		c += " --record"
	}
	return c
}

// RunningProgram is the running binary as a hook command's program: its
// absolute path with symlinks resolved, quoted for the harness's shell.
// Harnesses run hooks outside the user's shell, where lineage may not be
// on PATH.
func RunningProgram() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("the running binary's path: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return ProgramWord(exe, runtime.GOOS), nil
}

// ProgramWord quotes path as one word of a hook command on goos: kept as
// it is when it needs no quoting, else in single quotes for the POSIX shell
// the harnesses run hooks with (double quotes on Windows, where a path
// holds backslashes and cannot hold '"').
func ProgramWord(path, goos string) string {
	if goos == "windows" {
		if strings.ContainsAny(path, " \t&()^%!;,'`") {
			return `"` + path + `"`
		}
		return path
	}
	return shellQuote(path)
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@/+:,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isOurs reports whether a hook command is lineage's hook for h: the
// arguments "hook <harness>" after a program whose base name is lineage
// (or lineage.exe) — a bare name, an old install's, or any full path — or
// after program itself, the one this install writes (whatever its name).
func (h *Harness) isOurs(command, program string) bool {
	rest, ok := "", false
	if program != "" {
		rest, ok = strings.CutPrefix(command, program)
		ok = ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t')
	}
	if !ok {
		var word string
		word, rest = firstWord(command)
		base := word[strings.LastIndexAny(word, `/\`)+1:]
		if base != "lineage" && !strings.EqualFold(base, "lineage.exe") {
			return false
		}
	}
	rest, ok = strings.CutPrefix(strings.TrimLeft(rest, " \t"), "hook ")
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(strings.TrimLeft(rest, " \t"), h.Name)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t')
}

// firstWord splits a command line's first shell word, with its quoting
// removed, from the rest. Outside quotes a backslash escapes the shell's
// special bytes (a space, a quote, '$', ...) as in a POSIX shell, and
// before anything else is kept: it is a Windows path's separator.
func firstWord(command string) (word, rest string) {
	var b strings.Builder
	s := strings.TrimLeft(command, " \t")
	i := 0
	for ; i < len(s) && s[i] != ' ' && s[i] != '\t'; i++ {
		switch c := s[i]; c {
		case '\'', '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return b.String() + s[i+1:], ""
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case '\\':
			if i+1 < len(s) && strings.IndexByte(" \t'\"\\$`&|;<>()*?[]#~{}!", s[i+1]) >= 0 {
				i++
				c = s[i]
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), s[i:]
}

type hookCommand struct {
	Name    string `json:"name,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
}

type hookGroup struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []hookCommand `json:"hooks"`
}

// groups are the hook entries lineage installs, per event.
func (h *Harness) groups(program string, f Flags) []struct {
	event string
	group hookGroup
} {
	cmd := hookCommand{Type: "command", Command: h.Command(program, f)}
	start, tool := "", ""
	switch h {
	case Claude:
		start, tool = "startup|resume|clear|compact|fork", "Read|Edit|Write|MultiEdit|NotebookEdit|Grep|Glob|LS"
	case Gemini:
		// SessionStart matchers are exact strings in Gemini CLI: none
		// means every source.
		cmd.Name = "lineage-agents"
		tool = "read_file|write_file|replace|read_many_files|list_directory|glob|grep_search|search_file_content|invoke_agent"
	case Codex:
		tool = "apply_patch"
	case Cursor:
		tool = "Read|Write|Edit|StrReplace|Delete|Grep|Glob|LS"
	case Copilot:
		tool = copilotTools
	}
	out := []struct {
		event string
		group hookGroup
	}{
		{h.StartEvent, hookGroup{Matcher: start, Hooks: []hookCommand{cmd}}},
	}
	if h.SubagentEvent != "" {
		// A subagent's context starts empty: its start is a start. No
		// matcher: every agent type.
		out = append(out, struct {
			event string
			group hookGroup
		}{h.SubagentEvent, hookGroup{Hooks: []hookCommand{cmd}}})
	}
	if h.SubagentTool != "" {
		// The subagent's start goes into the prompt of the tool that runs
		// it; its tool events are its own until that tool returns.
		out = append(out, struct {
			event string
			group hookGroup
		}{h.BeforeToolEvent, hookGroup{Matcher: h.SubagentTool, Hooks: []hookCommand{cmd}}})
	}
	out = append(out, struct {
		event string
		group hookGroup
	}{h.ToolEvent, hookGroup{Matcher: tool, Hooks: []hookCommand{cmd}}})
	if h.PromptEvent != "" {
		out = append(out, struct {
			event string
			group hookGroup
		}{h.PromptEvent, hookGroup{Hooks: []hookCommand{cmd}}})
	}
	for _, e := range h.CompactEvents {
		if !f.Record || !slices.Contains(h.RecordEvents, e) {
			out = append(out, struct {
				event string
				group hookGroup
			}{e, hookGroup{Hooks: []hookCommand{cmd}}})
		}
	}
	if f.Record {
		for _, e := range h.RecordEvents {
			out = append(out, struct {
				event string
				group hookGroup
			}{e, hookGroup{Hooks: []hookCommand{cmd}}})
		}
	}
	return out
}

// Install returns the settings file's bytes with lineage's hook entries
// running program (see [Harness.Command]) added, keeping every other
// byte. data may be empty (a missing file). An entry that is already there
// as it would be written is left alone, so installing twice changes
// nothing; an older lineage entry for the same event (another program,
// other flags) is replaced.
func (h *Harness) Install(data []byte, program string, f Flags) ([]byte, error) {
	if h == Opencode {
		return installOpencode(data, program, f)
	}
	out := bytes.Clone(data)
	if len(bytes.TrimSpace(out)) == 0 {
		out = []byte("{}\n")
		if h.Flat {
			// Cursor's hooks.json says its format version.
			out = []byte("{\n  \"version\": 1\n}\n")
		}
	}
	for _, g := range h.groups(program, f) {
		var entry any = g.group
		if h.Flat {
			entry = h.flatEntry(g.group)
		}
		want, err := json.Marshal(entry)
		if err != nil {
			return nil, err
		}
		doc, err := parseDoc(out)
		if err != nil {
			return nil, err
		}
		if arr := doc.path("hooks", g.event); arr != nil && arr.kind == '[' && hasGroup(out, arr, want) && h.countOurs(out, arr, program) == 1 {
			continue
		}
		if out, err = h.removeOurs(out, g.event, program); err != nil {
			return nil, err
		}
		if out, err = insertGroup(out, g.event, entry); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Uninstall returns the settings file's bytes without lineage's hook
// commands — those running a program named lineage, or program — : a
// matcher group left with no hooks goes, an event left with no groups
// goes, and a "hooks" object left empty goes.
func (h *Harness) Uninstall(data []byte, program string) ([]byte, error) {
	if h == Opencode {
		// The plugin file goes whole: nil says so (see [EditSettingsFile]).
		return nil, uninstallOpencode(data)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return data, nil
	}
	out := data
	for _, g := range h.groups(program, Flags{Record: true}) {
		var err error
		if out, err = h.removeOurs(out, g.event, program); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// hasGroup reports whether arr holds a group equal to want (compared as
// compact JSON).
func hasGroup(data []byte, arr *node, want []byte) bool {
	for _, it := range arr.items {
		v := jsontext.Value(bytes.Clone(data[it.start:it.end]))
		if v.Compact() == nil && bytes.Equal(v, want) {
			return true
		}
	}
	return false
}

func (h *Harness) countOurs(data []byte, arr *node, program string) int {
	n := 0
	for _, g := range arr.items {
		if cmd := g.member("command"); h.Flat && cmd != nil && h.isOurs(cmd.text(data), program) {
			n++
		}
		if hs := g.member("hooks"); hs != nil {
			for _, c := range hs.items {
				if cmd := c.member("command"); cmd != nil && h.isOurs(cmd.text(data), program) {
					n++
				}
			}
		}
	}
	return n
}

// removeOurs removes lineage's commands from hooks.<event>, then whatever
// that leaves empty, one splice at a time.
func (h *Harness) removeOurs(data []byte, event, program string) ([]byte, error) {
	removed := false
	for {
		doc, err := parseDoc(data)
		if err != nil {
			return nil, err
		}
		hooksObj := doc.path("hooks")
		arr := doc.path("hooks", event)
		if hooksObj == nil || hooksObj.kind != '{' || arr == nil || arr.kind != '[' {
			return data, nil
		}
		next := h.removeOne(data, hooksObj, arr, event, program, removed)
		if next == nil {
			return data, nil
		}
		data, removed = next, true
	}
}

// removeOne makes one removal, or returns nil when there is none to make.
// Containers left empty are removed only after a removal (cleanup): an
// empty array the user wrote stays.
func (h *Harness) removeOne(data []byte, hooksObj, arr *node, event, program string, cleanup bool) []byte {
	for gi, g := range arr.items {
		if cmd := g.member("command"); h.Flat && g.kind == '{' && cmd != nil && h.isOurs(cmd.text(data), program) {
			return arr.remove(data, gi)
		}
		hs := g.member("hooks")
		if g.kind != '{' || hs == nil || hs.kind != '[' {
			continue
		}
		for ci, c := range hs.items {
			if cmd := c.member("command"); cmd != nil && h.isOurs(cmd.text(data), program) {
				if len(hs.items) == 1 {
					return arr.remove(data, gi)
				}
				return hs.remove(data, ci)
			}
		}
	}
	if len(arr.items) > 0 || !cleanup {
		return nil
	}
	// The event's array is empty: it was ours; the "hooks" object too
	// when nothing else is left in it.
	if len(hooksObj.members) == 1 {
		root, _ := parseDoc(data)
		return root.remove(data, root.memberIndex("hooks"))
	}
	return hooksObj.remove(data, hooksObj.memberIndex(event))
}

// insertGroup adds group at the end of hooks.<event>, creating the event
// and the "hooks" object when missing, in the file's own indentation.
func insertGroup(data []byte, event string, group any) ([]byte, error) {
	doc, err := parseDoc(data)
	if err != nil {
		return nil, err
	}
	style := detectStyle(data)
	hooksObj := doc.member("hooks")
	switch {
	case hooksObj == nil:
		return doc.insert(data, style, "hooks", map[string][]any{event: {group}})
	case hooksObj.kind != '{':
		return nil, errors.New(`"hooks" is not an object`)
	}
	arr := hooksObj.member(event)
	switch {
	case arr == nil:
		return hooksObj.insert(data, style, event, []any{group})
	case arr.kind != '[':
		return nil, fmt.Errorf(`"hooks.%s" is not an array`, event)
	}
	return arr.insert(data, style, "", group)
}

// TrustStep is what the user must do before the harness runs a hook
// install added or changed at scope, "" when nothing: Codex CLI keeps a
// hash of each hook it may run (hooks.state in its config.toml) and skips
// any other without a word in `codex exec`; Copilot CLI loads a
// repository's hooks only in a folder the user trusted.
func (h *Harness) TrustStep(scope string) string {
	if h == Copilot && scope == ScopeProject {
		return "Copilot CLI loads a repository's .github/hooks only in a folder you trusted: start `copilot` there and trust the folder for this and future sessions (headless: COPILOT_ALLOW_ALL=true); 'lineage hook status copilot' shows whether it is trusted."
	}
	if h != Codex {
		return ""
	}
	return "Codex CLI runs a new or changed hook only after you trust it: start `codex` in your project, type /hooks and trust lineage's SessionStart and PostToolUse hooks (again after every install that changed the command). `codex exec` skips untrusted hooks silently; 'lineage hook status codex' shows whether they are trusted."
}

// flatEntry is a group's one command as a flat entry: Cursor's hooks.json
// lists {"command", "matcher"} per event; Copilot CLI's hook files
// {"type": "command", "command", "matcher"} ("command" runs under bash and
// PowerShell both).
func (h *Harness) flatEntry(g hookGroup) any {
	if h == Copilot {
		return struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Matcher string `json:"matcher,omitempty"`
		}{"command", g.Hooks[0].Command, g.Matcher}
	}
	return struct {
		Command string `json:"command"`
		Matcher string `json:"matcher,omitempty"`
	}{g.Hooks[0].Command, g.Matcher}
}
