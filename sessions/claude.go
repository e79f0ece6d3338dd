package sessions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// ClaudeReader reads Claude Code transcripts: one JSONL file per session
// under ~/.claude/projects/<escaped cwd>/<sessionId>.jsonl, subagents in
// <sessionId>/subagents/agent-<agentId>.jsonl beside a .meta.json naming the
// spawning tool call. Entries with a uuid form a tree through parentUuid;
// one API response is written as one entry per content block.
type ClaudeReader struct{}

// Harness is Claude.
func (ClaudeReader) Harness() Harness { return Claude }

// claudeLine is the part of a Claude transcript line the reader uses.
type claudeLine struct {
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	UUID              string          `json:"uuid"`
	ParentUUID        string          `json:"parentUuid"`
	LogicalParentUUID string          `json:"logicalParentUuid"`
	SessionID         string          `json:"sessionId"`
	Timestamp         string          `json:"timestamp"`
	Cwd               string          `json:"cwd"`
	GitBranch         string          `json:"gitBranch"`
	Version           string          `json:"version"`
	IsMeta            bool            `json:"isMeta"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	IsSidechain       bool            `json:"isSidechain"`
	AgentID           string          `json:"agentId"`
	RequestSessionID  string          `json:"requestSessionId"`
	CustomTitle       string          `json:"customTitle"`
	Message           *claudeMessage  `json:"message"`
	Attachment        jsontext.Value  `json:"attachment"`
	Rendered          []claudeRender  `json:"rendered"`
	CompactMetadata   *claudeCompact  `json:"compactMetadata"`
	ForkedFrom        *claudeForkedAt `json:"forkedFrom"`
}

type claudeRender struct {
	Content string `json:"content"`
}

type claudeForkedAt struct {
	SessionID   string `json:"sessionId"`
	MessageUUID string `json:"messageUuid"`
}

type claudeCompact struct {
	Trigger           string `json:"trigger"`
	PreservedMessages *struct {
		UUIDs []string `json:"uuids"`
	} `json:"preservedMessages"`
}

type claudeMessage struct {
	ID         string         `json:"id"`
	Role       string         `json:"role"`
	Model      string         `json:"model"`
	Content    jsontext.Value `json:"content"`
	StopReason string         `json:"stop_reason"`
	Usage      *struct {
		Input      int64 `json:"input_tokens"`
		Output     int64 `json:"output_tokens"`
		CacheRead  int64 `json:"cache_read_input_tokens"`
		CacheWrite int64 `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

type claudeBlock struct {
	Type      string         `json:"type"`
	Text      string         `json:"text"`
	Thinking  string         `json:"thinking"`
	Signature string         `json:"signature"`
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Input     jsontext.Value `json:"input"`
	ToolUseID string         `json:"tool_use_id"`
	Content   jsontext.Value `json:"content"`
	IsError   bool           `json:"is_error"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		Path      string `json:"path"`
		URL       string `json:"url"`
	} `json:"source"`
}

// claudeAside are the line types outside the tree that the reader keeps
// as aside metadata records.
var claudeAside = []string{"agent-name", "atis-latch", "cost-state", "custom-title", "file-history-delta",
	"file-history-snapshot", "last-prompt", "mode", "permission-mode", "queue-operation", "tools-used"}

// claudeSkipped are line types that restate what the tree holds (each model
// request, rebuilt from the messages): counted, not kept.
var claudeSkipped = []string{"api-request", "api-request-blob", "api-request-shape"}

// claudeSystem are the system subtypes kept as metadata records in the tree
// (compact_boundary is a compaction).
var claudeSystem = []string{"local_command", "stop_hook_summary", "turn_duration"}

// claudeContext are the attachment types that put text before the model;
// hook_success only reports a hook's run.
var claudeContext = []string{"agent_listing_delta", "auto_mode", "date", "deferred_tools_delta", "environment",
	"file", "hook_additional_context", "instructions", "mcp_instructions_delta", "model", "nested_memory", "prompt_snapshot", "queued_command",
	"remote_session_change", "session_context", "skill_listing", "task_reminder"}

// Read reads a Claude transcript from the cursor on.
func (ClaudeReader) Read(ctx context.Context, src Source, from Cursor) (Batch, error) {
	t, err := readTail(src.Path, from)
	if err != nil {
		return Batch{}, err
	}
	p := claudeParser{path: src.Path, b: Batch{Next: t.Next}}
	p.b.Session.Harness = Claude
	p.b.Session.ID = strings.TrimSuffix(filepath.Base(src.Path), ".jsonl")
	for i, l := range t.Lines {
		if i%256 == 0 && ctx.Err() != nil {
			return Batch{}, ctx.Err()
		}
		if err := p.line(l); err != nil {
			return Batch{}, err
		}
	}
	p.flush()
	if n := len(p.b.Records); n > 0 {
		p.b.Next.LastKey = p.b.Records[n-1].Key()
	}
	if err := p.origin(src.Path); err != nil {
		return Batch{}, err
	}
	if !strings.HasPrefix(p.b.Session.ID, "agent-") {
		p.b.Related = claudeSubagents(src.Path)
	}
	return p.b, nil
}

// claudeParser holds the state of one read.
type claudeParser struct {
	path string
	b    Batch
	// group is the assistant record being merged from per-block entries.
	group      *Record
	groupMsgID string
	// boundary is the compaction a compact_boundary started, waiting for
	// its summary entry.
	boundary *Compaction
	// forkedFrom is the session a copied entry names.
	forkedFrom string
	agentID    string
	turnSeen   map[string]bool
	dec        lineDecoder
}

func (p *claudeParser) line(l line) error {
	var e claudeLine
	if !p.dec.decode(l.Data, &e) {
		e = claudeLine{}
		if err := json.Unmarshal(l.Data, &e); err != nil {
			return &LineError{Path: p.path, Line: l.N, Reason: "not a JSON object: " + err.Error()}
		}
	}
	switch {
	case e.Type == "":
		return &LineError{Path: p.path, Line: l.N, Field: "type", Reason: "missing"}
	case slices.Contains(claudeSkipped, e.Type):
		p.skip(e.Type)
		return nil
	case slices.Contains(claudeAside, e.Type):
		if e.Type == "custom-title" && e.CustomTitle != "" {
			p.b.Session.Title = e.CustomTitle
		}
		p.flush()
		p.emit(Record{Keys: []string{asideKey(e.Type, l.Offset, l.Data)}, Offset: l.Offset, Kind: KindMetadata, Type: e.Type, Aside: true, Raw: clone(l.Data)})
		return nil
	case e.Type != "user" && e.Type != "assistant" && e.Type != "system" && e.Type != "attachment":
		return &UnclassifiedError{Path: p.path, Line: l.N, Type: e.Type}
	case e.UUID == "":
		return &LineError{Path: p.path, Line: l.N, Field: "uuid", Reason: "missing on a " + e.Type + " entry"}
	}
	p.header(e)
	base := Record{Keys: []string{e.UUID}, Parent: e.ParentUUID, Offset: l.Offset, Time: parseTime(e.Timestamp), Type: e.Type}
	switch e.Type {
	case "assistant":
		return p.assistant(l, e, base)
	case "user":
		p.flush()
		return p.user(l, e, base)
	case "system":
		p.flush()
		return p.system(l, e, base)
	default:
		p.flush()
		return p.attachment(l, e, base)
	}
}

// header fills the session's fields from a tree entry.
func (p *claudeParser) header(e claudeLine) {
	s := &p.b.Session
	if s.Started.IsZero() {
		s.Started = parseTime(e.Timestamp)
	}
	s.Cwd = firstNonEmpty(e.Cwd, s.Cwd)
	s.GitBranch = firstNonEmpty(e.GitBranch, s.GitBranch)
	s.Version = firstNonEmpty(e.Version, s.Version)
	if e.Message != nil && e.Message.Model != "" && e.Message.Model != "<synthetic>" {
		s.Model = e.Message.Model
	}
	if e.ForkedFrom != nil && e.ForkedFrom.SessionID != "" && p.forkedFrom == "" {
		p.forkedFrom = e.ForkedFrom.SessionID
	}
	if e.RequestSessionID != "" && e.SessionID != "" && e.RequestSessionID != e.SessionID && p.forkedFrom == "" {
		p.forkedFrom = e.RequestSessionID
	}
	if e.IsSidechain && e.AgentID != "" {
		p.agentID = e.AgentID
	}
}

func (p *claudeParser) skip(typ string) {
	if p.b.Skipped == nil {
		p.b.Skipped = map[string]int{}
	}
	p.b.Skipped[typ]++
}

func (p *claudeParser) emit(r Record) { p.b.Records = append(p.b.Records, r) }

// flush emits the assistant record being merged.
func (p *claudeParser) flush() {
	if p.group != nil {
		if len(p.group.Calls) > 0 {
			p.group.Kind = KindToolCall
		}
		p.emit(*p.group)
		p.group, p.groupMsgID = nil, ""
	}
}

// chain emits the records one entry expands into, each on the one before;
// the last takes the entry's uuid, so the entry's children follow it, and
// the others uuid#i.
func (p *claudeParser) chain(base Record, recs []Record) {
	parent := base.Parent
	for i, r := range recs {
		r.Keys = []string{base.Key()}
		if i < len(recs)-1 {
			r.Keys = []string{base.Key() + "#" + itoa(i)}
		}
		r.Parent, r.Offset, r.Time, r.Type = parent, base.Offset, base.Time, base.Type
		p.emit(r)
		parent = r.Key()
	}
}

func (p *claudeParser) turn(m *claudeMessage) *Turn {
	if m.ID != "" {
		if p.turnSeen == nil {
			p.turnSeen = map[string]bool{}
		}
		if p.turnSeen[m.ID] {
			return nil
		}
		p.turnSeen[m.ID] = true
	}
	t := &Turn{Model: m.Model, ResponseID: m.ID, StopReason: m.StopReason}
	if u := m.Usage; u != nil {
		t.Input, t.Output, t.CacheRead, t.CacheWrite = u.Input, u.Output, u.CacheRead, u.CacheWrite
	}
	return t
}

// clone copies a line: the read's buffer is not kept by the records.
func clone(b []byte) jsontext.Value { return jsontext.Value(slices.Clone(b)) }

// asideKey keys a line without an id of its own by its type, offset and
// bytes: the same line read twice is the same record, and two equal lines
// (a repeated "mode" line) are two records.
func asideKey(typ string, offset int64, data []byte) string {
	sum := sha256.Sum256(data)
	return typ + "@" + strconv.FormatInt(offset, 10) + ":" + hex.EncodeToString(sum[:6])
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// claudeSubagents lists the subagent transcripts of the session file path,
// sorted.
func claudeSubagents(path string) []Source {
	dir := strings.TrimSuffix(path, ".jsonl") + string(filepath.Separator) + "subagents"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Source
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && strings.HasPrefix(n, "agent-") && strings.HasSuffix(n, ".jsonl") {
			out = append(out, Source{Harness: Claude, Path: filepath.Join(dir, n)})
		}
	}
	return out
}
