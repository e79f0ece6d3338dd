package hooks

import (
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Cursor's hooks (cursor.com/docs/hooks): hooks.json holds {"version": 1,
// "hooks": {"<event>": [{"command": …, "matcher": …}]}} — one flat entry
// per command, no matcher groups. Events name the conversation
// (conversation_id; sessionStart also session_id) and the workspace
// (workspace_roots; tool events also cwd). Only sessionStart and
// postToolUse take context for the model (additional_context);
// beforeReadFile and subagentStart answer a permission, preCompact only a
// message for the user.
const (
	cursorReadEvent     = "beforeReadFile"
	cursorSubagentEvent = "subagentStart"
)

// cursorName is Cursor's name for a Claude Code event name Cursor maps
// onto its own when it runs the hooks of Claude Code's settings files
// (third-party hooks, cursor.com/docs/reference/third-party-hooks); any
// other name as it is. (A switch, not a map: nothing allocated at init.)
func cursorName(name string) string {
	switch name {
	case "SessionStart":
		return "sessionStart"
	case "PostToolUse":
		return "postToolUse"
	case "PreCompact":
		return "preCompact"
	case "SubagentStart":
		return cursorSubagentEvent
	}
	return name
}

// cursorWire is what a Cursor event adds to the fields the other
// harnesses share.
type cursorWire struct {
	ConversationID string   `json:"conversation_id"`
	WorkspaceRoots []string `json:"workspace_roots"`
	CursorVersion  string   `json:"cursor_version"`
	SubagentID     string   `json:"subagent_id"`
}

// IsCursorEvent reports whether data is an event Cursor sent: Cursor runs
// the hook entries of Claude Code's settings files too (with third-party
// hooks on), so `lineage hook claude` may get one, and must answer it as
// Cursor reads answers. Cursor's events carry cursor_version, or a
// conversation_id with workspace_roots; Claude Code's carry neither.
func IsCursorEvent(data []byte) bool {
	var w cursorWire
	if json.Unmarshal(data, &w, json.RejectUnknownMembers(false)) != nil {
		return false
	}
	return w.CursorVersion != "" || w.ConversationID != "" && w.WorkspaceRoots != nil
}

// cursorEvent fills w's shared fields from Cursor's: the session is the
// conversation, the working directory the tool's cwd or else the first
// workspace root, and a Claude Code event name becomes Cursor's. sub is
// the subagent a subagentStart starts ("" for none).
func cursorEvent(data []byte, w *wireEvent) (sub string) {
	var c cursorWire
	_ = json.Unmarshal(data, &c, json.RejectUnknownMembers(false))
	w.Name = cursorName(w.Name)
	if c.ConversationID != "" {
		w.SessionID = c.ConversationID
	}
	if w.Cwd == "" && len(c.WorkspaceRoots) > 0 {
		w.Cwd = c.WorkspaceRoots[0]
	}
	return c.SubagentID
}

// cursorOutput is Cursor's answer: additional_context for sessionStart and
// postToolUse; an explicit permission for beforeReadFile, whose answer
// cannot carry context.
func cursorOutput(ev Event, context string) ([]byte, error) {
	if ev.Name == cursorReadEvent {
		return []byte(`{"permission":"allow"}` + "\n"), nil
	}
	if context == "" {
		return nil, nil
	}
	out, err := json.Marshal(struct {
		AdditionalContext string `json:"additional_context"`
	}{context}, jsontext.AllowInvalidUTF8(true))
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// cursorPaths: the paths a Cursor tool's input names. Cursor documents
// tool_input as the tool's own arguments without a schema per tool, so
// every file tool (not Shell, Task or an MCP tool) is read for the keys
// its file and folder tools use.
func cursorPaths(tool string, input map[string]any) ([]string, error) {
	if tool == "Shell" || tool == "Task" || strings.HasPrefix(tool, "MCP") {
		return nil, nil
	}
	return str(input, "file_path", "target_file", "path", "target_directory")
}

// cursorNative: Cursor puts the AGENTS.md of the workspace root in every
// conversation itself, and applies the AGENTS.md files of subdirectories
// to the files it works on there — when, its docs do not say, so those
// are named with "may have attached" after a file tool, never as certain.
// Its own rules (.cursor/rules) it applies itself.
func cursorNative(cwd string) Native {
	n := Native{Harness: Cursor, Known: true, Names: []string{"AGENTS.md"}, files: map[string]int64{},
		How: "Cursor loads the workspace root's AGENTS.md and its .cursor/rules", rules: ownRules(Cursor)}
	if p := filepath.Join(cwd, "AGENTS.md"); isFile(p) {
		n.files[realPath(p)] = -1
	}
	n.attach = []attachRule{{tools: []string{"Read", "Write", "Edit", "StrReplace", "Delete", "Grep", "Glob", "LS"},
		dirTools: []string{"Grep", "Glob", "LS"}, names: []string{"AGENTS.md"}, maybe: true}}
	return n
}
