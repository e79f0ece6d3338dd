package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
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
// Code ~/.claude/settings.json, <project>/.claude/settings.json and
// <project>/.claude/settings.local.json; Gemini CLI ~/.gemini/settings.json
// and <project>/.gemini/settings.json; Codex CLI ~/.codex/hooks.json and
// <project>/.codex/hooks.json. Gemini CLI and Codex CLI have no local scope.
func (h *Harness) SettingsPath(scope, home, project string) (string, error) {
	dir, file := "."+h.Name, "settings.json"
	if h == Codex {
		file = "hooks.json"
	}
	switch scope {
	case ScopeUser:
		if home == "" {
			return "", errors.New("no home directory (HOME, or USERPROFILE on Windows, is not set)")
		}
		return filepath.Join(home, dir, file), nil
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

// Command is the command line a harness runs for lineage's hook.
func (h *Harness) Command(slug string) string {
	c := "lineage hook " + h.Name
	if slug != "" {
		c += " --slug " + shellQuote(slug)
	}
	return c
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isOurs reports whether a hook command is lineage's hook for h.
func (h *Harness) isOurs(command string) bool {
	rest, ok := strings.CutPrefix(command, "lineage hook "+h.Name)
	return ok && (rest == "" || rest[0] == ' ')
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
func (h *Harness) groups(slug string) []struct {
	event string
	group hookGroup
} {
	cmd := hookCommand{Type: "command", Command: h.Command(slug)}
	start, tool := "", ""
	switch h {
	case Claude:
		start, tool = "startup|resume|clear|compact", "Read|Edit|Write|MultiEdit|NotebookEdit|Grep|Glob|LS"
	case Gemini:
		// SessionStart matchers are exact strings in Gemini CLI: none
		// means every source.
		cmd.Name = "lineage-agents"
		tool = "read_file|write_file|replace|read_many_files|list_directory|glob|grep_search|search_file_content"
	case Codex:
		tool = "apply_patch"
	}
	return []struct {
		event string
		group hookGroup
	}{
		{h.StartEvent, hookGroup{Matcher: start, Hooks: []hookCommand{cmd}}},
		{h.ToolEvent, hookGroup{Matcher: tool, Hooks: []hookCommand{cmd}}},
	}
}

// Install returns the settings file's bytes with lineage's hook entries
// added, keeping every other byte. data may be empty (a missing file).
// An entry that is already there as it would be written is left alone,
// so installing twice changes nothing; an older lineage entry for the same
// event is replaced.
func (h *Harness) Install(data []byte, slug string) ([]byte, error) {
	out := bytes.Clone(data)
	if len(bytes.TrimSpace(out)) == 0 {
		out = []byte("{}\n")
	}
	for _, g := range h.groups(slug) {
		want, err := json.Marshal(g.group)
		if err != nil {
			return nil, err
		}
		doc, err := parseDoc(out)
		if err != nil {
			return nil, err
		}
		if arr := doc.path("hooks", g.event); arr != nil && arr.kind == '[' && hasGroup(out, arr, want) && h.countOurs(out, arr) == 1 {
			continue
		}
		if out, err = h.removeOurs(out, g.event); err != nil {
			return nil, err
		}
		if out, err = insertGroup(out, g.event, g.group); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Uninstall returns the settings file's bytes without lineage's hook
// commands: a matcher group left with no hooks goes, an event left with no
// groups goes, and a "hooks" object left empty goes.
func (h *Harness) Uninstall(data []byte) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return data, nil
	}
	out := data
	for _, g := range h.groups("") {
		var err error
		if out, err = h.removeOurs(out, g.event); err != nil {
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

func (h *Harness) countOurs(data []byte, arr *node) int {
	n := 0
	for _, g := range arr.items {
		if hs := g.member("hooks"); hs != nil {
			for _, c := range hs.items {
				if cmd := c.member("command"); cmd != nil && h.isOurs(cmd.text(data)) {
					n++
				}
			}
		}
	}
	return n
}

// removeOurs removes lineage's commands from hooks.<event>, then whatever
// that leaves empty, one splice at a time.
func (h *Harness) removeOurs(data []byte, event string) ([]byte, error) {
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
		next := h.removeOne(data, hooksObj, arr, event, removed)
		if next == nil {
			return data, nil
		}
		data, removed = next, true
	}
}

// removeOne makes one removal, or returns nil when there is none to make.
// Containers left empty are removed only after a removal (cleanup): an
// empty array the user wrote stays.
func (h *Harness) removeOne(data []byte, hooksObj, arr *node, event string, cleanup bool) []byte {
	for gi, g := range arr.items {
		hs := g.member("hooks")
		if g.kind != '{' || hs == nil || hs.kind != '[' {
			continue
		}
		for ci, c := range hs.items {
			if cmd := c.member("command"); cmd != nil && h.isOurs(cmd.text(data)) {
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
func insertGroup(data []byte, event string, group hookGroup) ([]byte, error) {
	doc, err := parseDoc(data)
	if err != nil {
		return nil, err
	}
	style := detectStyle(data)
	hooksObj := doc.member("hooks")
	switch {
	case hooksObj == nil:
		return doc.insert(data, style, "hooks", map[string][]hookGroup{event: {group}})
	case hooksObj.kind != '{':
		return nil, errors.New(`"hooks" is not an object`)
	}
	arr := hooksObj.member(event)
	switch {
	case arr == nil:
		return hooksObj.insert(data, style, event, []hookGroup{group})
	case arr.kind != '[':
		return nil, fmt.Errorf(`"hooks.%s" is not an array`, event)
	}
	return arr.insert(data, style, "", group)
}
