package hooks

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Harness is a coding-agent CLI whose hooks lineage answers.
type Harness struct {
	// Name is the command-line name: "claude", "gemini", "codex".
	Name string
	// Title is the product name used in messages.
	Title string
	// StartEvent and ToolEvent are the harness's event names for a session
	// start and for the moment after a tool ran; SubagentEvent, when set,
	// is the event that starts a subagent (a start for that agent).
	StartEvent, ToolEvent, SubagentEvent string
	// RecordEvents end a turn, a subagent or a compaction: the transcript
	// holds the turn by then, and a hook installed with --record appends
	// what is new to the user's sessions store (docs/sessions.md).
	RecordEvents []string
	// SubagentTool, when set, is the tool that runs a subagent whose tool
	// events carry the parent's session and no agent field (Gemini CLI's
	// invoke_agent): lineage answers BeforeToolEvent for it as the
	// subagent's start, written into the tool's prompt, and attributes the
	// tool events until its ToolEvent to the subagent.
	SubagentTool, BeforeToolEvent string
	// CompactEvents report a compaction of the conversation: the session's
	// state is dropped, so the next event answers as a start (the model
	// lost lineage's earlier texts). CompactManual, when set, is the
	// trigger value of the only compactions the event reports for sure.
	CompactEvents []string
	CompactManual string
	// StartOnce: a start event of a session lineage already has state
	// for changes nothing (Cursor runs lineage's entries of its own
	// hooks.json and of Claude Code's settings files both: the second
	// start must not send the instructions again).
	StartOnce bool
	// Flat: the settings file holds one entry per command under each
	// event ({"command", "matcher"}), not matcher groups (Cursor, Copilot
	// CLI).
	Flat bool
	// PromptEvent, when set, is the event of a user's prompt: answered as
	// a start only when lineage has no state for the session (hooks
	// installed mid-session, or after a compaction dropped it), so the
	// rules come back with the next prompt.
	PromptEvent string
	// HeadPerRun: the harness shows the answer of the latest start at the
	// head of the conversation, outside its history (Copilot CLI): every
	// run (a resume too) shows only its own start's answer, and a
	// compaction keeps it. So a resume gets the start's text again (the
	// reminders, in the history, stay reported), and a compaction
	// ([Harness.CompactEvents]) starts the session afresh without an
	// answer: the start's text is still there, the reminders are not.
	HeadPerRun bool
	// StartInSystem: the harness puts the start's answer in the system
	// prompt it builds anew in every process (opencode), not in the
	// history: a start answers in full each time, the memories sent
	// before included.
	StartInSystem bool
	// toolPaths returns the paths a tool's input names, or an error
	// naming a path field of the wrong type.
	toolPaths func(tool string, input map[string]any) ([]string, error)
}

// The harnesses lineage supports. Event and field names follow each
// harness's hooks reference (see docs/hooks.md for the sources).
var (
	Claude = &Harness{Name: "claude", Title: "Claude Code", StartEvent: "SessionStart", ToolEvent: "PostToolUse", SubagentEvent: "SubagentStart",
		RecordEvents: []string{"Stop", "SubagentStop", "PostCompact", "SessionEnd"}, toolPaths: claudePaths}
	// Gemini's PreCompress fires before every compression attempt, even
	// one that finds the history under its threshold; only its "manual"
	// trigger (/compress) always compresses.
	Gemini = &Harness{Name: "gemini", Title: "Gemini CLI", StartEvent: "SessionStart", ToolEvent: "AfterTool",
		RecordEvents: []string{"AfterAgent", "SessionEnd"}, SubagentTool: "invoke_agent", BeforeToolEvent: "BeforeTool",
		CompactEvents: []string{"PreCompress"}, CompactManual: "manual", toolPaths: geminiPaths}
	Codex = &Harness{Name: "codex", Title: "Codex CLI", StartEvent: "SessionStart", ToolEvent: "PostToolUse",
		RecordEvents: []string{"Stop", "SubagentStop", "PostCompact", "SessionEnd"}, CompactEvents: []string{"PostCompact"}, toolPaths: codexPaths}
	// Cursor's subagentStart cannot add context (it answers a permission):
	// it drops the subagent conversation's state, so the subagent's first
	// tool event is answered as its start.
	Cursor = &Harness{Name: "cursor", Title: "Cursor", StartEvent: "sessionStart", ToolEvent: "postToolUse", SubagentEvent: cursorSubagentEvent,
		CompactEvents: []string{"preCompact"}, StartOnce: true, Flat: true, toolPaths: cursorPaths}
	// Copilot CLI is wired by its PascalCase event names, whose payloads
	// carry hook_event_name and snake_case fields (see copilot.go).
	Copilot = &Harness{Name: "copilot", Title: "Copilot CLI", StartEvent: "SessionStart", ToolEvent: "PostToolUse", SubagentEvent: copilotSubagentEvent,
		PromptEvent: copilotPromptEvent, CompactEvents: []string{"PreCompact"}, HeadPerRun: true, Flat: true, toolPaths: copilotPaths}
	// opencode runs lineage from the plugin `hook install opencode` writes
	// (opencode.go): its events are the plugin's.
	Opencode = &Harness{Name: "opencode", Title: "opencode", StartEvent: opencodeStartEvent, ToolEvent: opencodeToolEvent,
		CompactEvents: []string{opencodeCompactEvent}, StartInSystem: true, toolPaths: opencodePaths}
)

// Harnesses lists the supported harnesses.
func Harnesses() []*Harness { return []*Harness{Claude, Gemini, Codex, Cursor, Copilot, Opencode} }

// HarnessNamed returns the harness called name, or nil.
func HarnessNamed(name string) *Harness {
	for _, h := range Harnesses() {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// Kind is what an event means for the instructions session.
type Kind int

// Kinds of events.
const (
	// Ignored: an event lineage has nothing to say about.
	Ignored Kind = iota
	// Start: a new context window (startup, clear, or after a compaction):
	// the model has no AGENTS.md reminders yet.
	Start
	// Resume: an earlier conversation continues.
	Resume
	// Tool: a tool ran; Paths are what it touched.
	Tool
	// SubagentEnd: the tool that ran a subagent returned
	// ([Harness.SubagentTool]).
	SubagentEnd
	// Compact: the harness compacted the conversation.
	Compact
	// Prompt: the user sent a prompt ([Harness.PromptEvent]); a start
	// when the session has no state, else nothing.
	Prompt
)

// GeminiSubagent is the agent id lineage gives the subagents Gemini CLI's
// invoke_agent runs (their events carry no agent field of their own).
const GeminiSubagent = "invoke_agent"

// Event is one hook event.
type Event struct {
	Kind Kind
	// Name is the harness's event name (hook_event_name).
	Name      string
	SessionID string
	// AgentID names the subagent the event belongs to ("" for the main
	// agent): Claude Code's agent_id. Each agent has its own state.
	AgentID string
	// AgentType is the subagent's type (Claude Code's agent_type).
	AgentType string
	// Cwd is the session's working directory, absolute.
	Cwd string
	// Source is the session-start source (startup, resume, clear, compact).
	Source string
	Tool   string
	// Paths are the paths the tool's input names, as given (relative ones
	// are relative to Cwd).
	Paths []string
	// Transcripts are the transcript files the event names: the session's
	// own (transcript_path) and, at a subagent's end, the subagent's
	// (agent_transcript_path).
	Transcripts []string
	// Record is set for an event that ends a turn ([Harness.RecordEvents]).
	Record bool
	// Prompt is the subagent's prompt of a BeforeTool for
	// [Harness.SubagentTool]: the start is written into it.
	Prompt string
	// ToolInput is that tool's whole input: the answer gives it back with
	// the prompt changed (Gemini CLI validates the input it gets back as a
	// whole).
	ToolInput map[string]any
	// IntoPrompt: the answer goes into the tool's prompt, not into
	// additional context.
	IntoPrompt bool
	// Silent: the harness does not read the answer (a compaction of a
	// [Harness.HeadPerRun] harness, answered as a start for its state).
	Silent bool
}

// MaxEventBytes is the largest event read: tool inputs carry file
// contents (a Write's content, a patch), so the limit is generous.
const MaxEventBytes = 64 << 20

type wireEvent struct {
	SessionID string    `json:"session_id"`
	AgentID   string    `json:"agent_id"`
	AgentType string    `json:"agent_type"`
	Cwd       string    `json:"cwd"`
	Name      string    `json:"hook_event_name"`
	Source    string    `json:"source"`
	Trigger   string    `json:"trigger"`
	ToolName  string    `json:"tool_name"`
	ToolInput toolInput `json:"tool_input"`
	// Every event of the three harnesses names the session's transcript.
	Transcript      string `json:"transcript_path"`
	AgentTranscript string `json:"agent_transcript_path"`
}

// toolInput is a tool event's tool_input, decoded with the rest of the
// event in one pass: an object's members; nil for anything else (a tool
// with no input, or one that is not an object, names no paths).
type toolInput map[string]any

func (t *toolInput) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	var m map[string]any
	if err := json.UnmarshalDecode(dec, &m); err != nil {
		return err
	}
	*t = m
	return nil
}

// ParseEvent reads one event as the harness sends it. Unknown fields are
// ignored (harnesses add fields); a missing session_id, cwd or
// hook_event_name, or a relative cwd, is an error naming the field.
func (h *Harness) ParseEvent(data []byte) (Event, error) {
	var w wireEvent
	if err := json.Unmarshal(data, &w); err != nil {
		return Event{}, fmt.Errorf("%s hook event: %w", h.Title, describeJSON(data, 0, err))
	}
	cursorSub := ""
	switch h {
	case Cursor:
		cursorSub = cursorEvent(data, &w)
	case Copilot:
		copilotEvent(data, &w)
	}
	switch {
	case w.Name == "":
		return Event{}, fmt.Errorf("%s hook event: hook_event_name is missing", h.Title)
	case w.SessionID == "":
		return Event{}, fmt.Errorf("%s hook event: session_id is missing", h.Title)
	case w.Cwd == "":
		return Event{}, fmt.Errorf("%s hook event: cwd is missing", h.Title)
	case !filepath.IsAbs(w.Cwd):
		return Event{}, fmt.Errorf("%s hook event: cwd %q is not an absolute path", h.Title, w.Cwd)
	}
	ev := Event{Name: w.Name, SessionID: w.SessionID, AgentID: w.AgentID, AgentType: w.AgentType,
		Cwd: filepath.Clean(w.Cwd), Source: w.Source, Tool: w.ToolName, Record: slices.Contains(h.RecordEvents, w.Name)}
	for _, t := range []string{w.Transcript, w.AgentTranscript} {
		if t != "" && filepath.IsAbs(t) && !strings.ContainsRune(t, 0) {
			ev.Transcripts = append(ev.Transcripts, filepath.Clean(t))
		}
	}
	if h.SubagentTool != "" && w.ToolName == h.SubagentTool {
		switch w.Name {
		case h.BeforeToolEvent:
			prompt, err := str(w.ToolInput, "prompt")
			if err != nil {
				return Event{}, fmt.Errorf("%s hook event: at /tool_input%w", h.Title, err)
			}
			ev.Kind, ev.AgentID, ev.IntoPrompt = Start, GeminiSubagent, true
			ev.Prompt, ev.ToolInput = strings.Join(prompt, ""), w.ToolInput
		case h.ToolEvent:
			ev.Kind = SubagentEnd
		}
		return ev, nil
	}
	if h.compaction(&ev, w, cursorSub) {
		return ev, nil
	}
	switch w.Name {
	case h.SubagentEvent:
		if h.SubagentEvent != "" && w.AgentID != "" {
			ev.Kind = Start
		}
	case h.StartEvent:
		ev.Kind = Start
		if w.Source == "resume" {
			ev.Kind = Resume
		}
	case h.PromptEvent:
		ev.Kind = Prompt
	case h.ToolEvent:
		paths, err := h.toolPaths(w.ToolName, w.ToolInput)
		if err != nil {
			return Event{}, fmt.Errorf("%s hook event: at /tool_input%w", h.Title, err)
		}
		ev.Paths = cleanPaths(paths)
		if len(ev.Paths) > 0 {
			ev.Kind = Tool
		}
	}
	return ev, nil
}

// compaction sets ev's kind for the events that end a context window
// without starting one (a compaction; Cursor's subagentStart, whose
// subagent starts afresh at its first tool event) and for Cursor's
// beforeReadFile (a permission only); false for any other event.
func (h *Harness) compaction(ev *Event, w wireEvent, cursorSub string) bool {
	switch {
	case h == Cursor && w.Name == cursorReadEvent:
		return true
	case h == Cursor && w.Name == cursorSubagentEvent:
		if cursorSub != "" {
			ev.Kind, ev.SessionID = Compact, cursorSub
		}
		return true
	case slices.Contains(h.CompactEvents, w.Name) && h.HeadPerRun:
		// The start's text outlives the compaction; the reminders do not.
		ev.Kind, ev.Source, ev.Silent = Start, "compact", true
		return true
	case slices.Contains(h.CompactEvents, w.Name):
		if h.CompactManual == "" || w.Trigger == h.CompactManual {
			ev.Kind = Compact
		}
		return true
	}
	return false
}

func cleanPaths(ps []string) []string {
	var out []string
	for _, p := range ps {
		if strings.TrimSpace(p) != "" && !strings.ContainsRune(p, 0) {
			out = append(out, p)
		}
	}
	return out
}

// str returns input[key] for each key present as a string; absent and
// null keys are skipped, any other type is an error naming the key (the
// caller prefixes "tool_input").
func str(input map[string]any, keys ...string) ([]string, error) {
	var out []string
	for _, k := range keys {
		switch v := input[k].(type) {
		case nil:
		case string:
			out = append(out, v)
		default:
			return nil, fmt.Errorf("/%s: want a string, got %s", k, jsonKind(v))
		}
	}
	return out, nil
}

// jsonKind names the JSON kind of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "null"
}

// Output is what the hook prints on stdout for context: the harness's
// hookSpecificOutput object naming the event, or nil when context is
// empty (the hook then prints nothing at all).
func (h *Harness) Output(ev Event, context string) ([]byte, error) {
	switch h {
	case Cursor:
		return cursorOutput(ev, context)
	case Copilot:
		return copilotOutput(context)
	}
	if h == Opencode {
		return opencodeOutput(context)
	}
	if context == "" {
		return nil, nil
	}
	if ev.IntoPrompt {
		// Gemini CLI merges hookSpecificOutput.tool_input into the tool's
		// arguments before it runs the tool.
		input := map[string]any{}
		for k, v := range ev.ToolInput {
			input[k] = v
		}
		input["prompt"] = joinNonEmpty(ev.Prompt, context)
		type specific struct {
			HookEventName string         `json:"hookEventName"`
			ToolInput     map[string]any `json:"tool_input"`
		}
		out, err := json.Marshal(struct {
			HookSpecificOutput specific `json:"hookSpecificOutput"`
		}{specific{ev.Name, input}}, jsontext.AllowInvalidUTF8(true), json.Deterministic(true))
		if err != nil {
			return nil, err
		}
		return append(out, '\n'), nil
	}
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	out, err := json.Marshal(struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{ev.Name, context}}, jsontext.AllowInvalidUTF8(true))
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// ErrUnknownHarness is returned for a harness name lineage does not know.
var ErrUnknownHarness = errors.New("unknown harness")
