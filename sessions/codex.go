package sessions

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// CodexReader reads Codex CLI rollouts: $CODEX_HOME/sessions/YYYY/MM/DD/
// rollout-<ts>-<threadId>.jsonl, one line per item with a contiguous
// ordinal. A fork copies nothing: its session_meta's history_base points
// into the parent's file. A rewind opens a segment file
// rollout-<ts>-<threadId>_<segmentId>.jsonl whose ordinals start again at
// the rewound turn; its keys are "<segmentId>/<ordinal>" so they never meet
// the abandoned ordinals of the first file.
type CodexReader struct{}

// Harness is Codex.
func (CodexReader) Harness() Harness { return Codex }

// codexLine is a rollout line's envelope.
type codexLine struct {
	Timestamp string         `json:"timestamp"`
	Ordinal   *int64         `json:"ordinal"`
	Type      string         `json:"type"`
	Payload   jsontext.Value `json:"payload"`
}

// codexEventsSkipped restate what response items hold (the UI's copies,
// usage totals, turn brackets): counted, not kept.
var codexEventsSkipped = []string{"token_count", "thread_settings_applied", "task_started", "task_complete"}

// codexItemsSkipped are item_completed items that restate a response item.
var codexItemsSkipped = []string{"UserMessage", "AgentMessage", "Reasoning"}

// codexItemsAside are item_completed items with structured results only
// the UI shows (exit codes, diffs, spawn edges): kept as aside metadata.
// (Lists, not maps: nothing is built at start-up.)
var codexItemsAside = []string{"CommandExecution", "FileChange", "CollabAgentToolCall", "ImageView",
	"ContextCompaction", "WebSearch", "McpToolCall"}

// Read reads a rollout from the cursor on.
func (CodexReader) Read(ctx context.Context, src Source, from Cursor) (Batch, error) {
	t, err := readTail(src.Path, from)
	if err != nil {
		return Batch{}, err
	}
	id, segment := codexFileIDs(src.Path)
	p := &codexParser{path: src.Path, segment: segment, prev: from.LastKey, b: Batch{Next: t.Next}}
	p.b.Session.Harness, p.b.Session.ID = Codex, id
	p.b.Next.Ordinal = from.Ordinal
	for i, l := range t.Lines {
		if i%256 == 0 && ctx.Err() != nil {
			return Batch{}, ctx.Err()
		}
		if err := p.line(l); err != nil {
			return Batch{}, err
		}
	}
	p.flush()
	p.b.Next.LastKey = p.prev
	if from.Offset == 0 && p.meta != nil {
		if err := p.origin(ctx); err != nil {
			return Batch{}, err
		}
	}
	return p.b, nil
}

// codexFileIDs returns the thread id and the segment id ("" for the
// thread's first file) a rollout's name carries.
func codexFileIDs(path string) (id, segment string) {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if i := strings.IndexByte(name, '_'); i >= 0 {
		name, segment = name[:i], name[i+1:]
	}
	// rollout-YYYY-MM-DDTHH-MM-SS-<uuid>: the uuid is the last 5 dash fields.
	parts := strings.Split(name, "-")
	if len(parts) >= 5 {
		id = strings.Join(parts[len(parts)-5:], "-")
	}
	return id, segment
}

// codexParser holds the state of one read.
type codexParser struct {
	path    string
	segment string
	b       Batch
	// prev is the key of the last conversation record: the next one's
	// parent (the file is one line of history).
	prev string
	// calls is a run of tool calls being merged into one record (one
	// model response calling several tools), aside the records held back
	// so the batch stays in file order.
	calls *Record
	aside []Record
	// msgKeys maps a message item's id to its record key, for the items
	// a compaction keeps.
	msgKeys map[string]string
	meta    *codexMeta
	// lastModel is the newest record a model response made, for usage.
	lastModel int
}

func (p *codexParser) key(ord int64) string {
	k := strconv.FormatInt(ord, 10)
	if p.segment != "" {
		return p.segment + "/" + k
	}
	return k
}

func (p *codexParser) line(l line) error {
	var e codexLine
	if err := json.Unmarshal(l.Data, &e); err != nil {
		return &LineError{Path: p.path, Line: l.N, Reason: "not a JSON object: " + err.Error()}
	}
	switch {
	case e.Type == "":
		return &LineError{Path: p.path, Line: l.N, Field: "type", Reason: "missing"}
	case e.Ordinal == nil:
		return &LineError{Path: p.path, Line: l.N, Field: "ordinal", Reason: "missing (only paginated rollouts are read)"}
	case e.Payload.Kind() != '{':
		return &LineError{Path: p.path, Line: l.N, Field: "payload", Reason: "want an object"}
	}
	p.b.Next.Ordinal = *e.Ordinal + 1
	base := Record{Keys: []string{p.key(*e.Ordinal)}, Offset: l.Offset, Time: parseTime(e.Timestamp), Type: e.Type}
	switch e.Type {
	case "session_meta":
		return p.sessionMeta(l, e, base)
	case "response_item":
		return p.responseItem(l, e, base)
	case "compacted":
		return p.compacted(l, e, base)
	case "turn_context":
		var tc struct {
			Model string `json:"model"`
			Cwd   string `json:"cwd"`
		}
		_ = json.Unmarshal(e.Payload, &tc)
		p.b.Session.Model = firstNonEmpty(tc.Model, p.b.Session.Model)
		p.b.Session.Cwd = firstNonEmpty(p.b.Session.Cwd, tc.Cwd)
		p.asideRecord(base, l)
	case "world_state":
		p.asideRecord(base, l)
	case "token_usage_record":
		p.usage(e.Payload)
		p.asideRecord(base, l)
	case "event_msg":
		return p.event(l, e, base)
	default:
		return &UnclassifiedError{Path: p.path, Line: l.N, Type: e.Type}
	}
	return nil
}

// emit adds a conversation record on the one before it.
func (p *codexParser) emit(r Record) {
	p.flush()
	p.push(r)
}

func (p *codexParser) push(r Record) {
	r.Parent = p.prev
	p.prev = r.Key()
	p.b.Records = append(p.b.Records, r)
	if r.Kind == KindMessage && r.Role == "assistant" || r.Kind == KindToolCall || r.Kind == KindReasoning {
		p.lastModel = len(p.b.Records)
	}
}

// flush emits the run of tool calls and the aside records held behind it.
func (p *codexParser) flush() {
	if p.calls != nil {
		c := *p.calls
		p.calls = nil
		p.push(c)
	}
	p.b.Records = append(p.b.Records, p.aside...)
	p.aside = nil
}

// asideRecord keeps a line as metadata outside the conversation.
func (p *codexParser) asideRecord(base Record, l line) {
	base.Kind, base.Aside, base.Raw = KindMetadata, true, clone(l.Data)
	if p.calls != nil {
		p.aside = append(p.aside, base)
		return
	}
	p.b.Records = append(p.b.Records, base)
}

func (p *codexParser) skip(typ string) {
	if p.b.Skipped == nil {
		p.b.Skipped = map[string]int{}
	}
	p.b.Skipped[typ]++
}

// usage puts a response's token counts on the newest record the model made
// in this read, when it has none yet.
func (p *codexParser) usage(payload jsontext.Value) {
	var u struct {
		ResponseID string `json:"response_id"`
		Usage      struct {
			Input  int64 `json:"input_tokens"`
			Cached int64 `json:"cached_input_tokens"`
			Output int64 `json:"output_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(payload, &u) != nil {
		return
	}
	var r *Record
	switch {
	case p.calls != nil:
		r = p.calls
	case p.lastModel > 0:
		r = &p.b.Records[p.lastModel-1]
	default:
		return
	}
	if r.Turn == nil {
		r.Turn = &Turn{Model: p.b.Session.Model, ResponseID: u.ResponseID, Input: u.Usage.Input,
			Output: u.Usage.Output, CacheRead: u.Usage.Cached}
	}
}

// event maps an event_msg line: UI copies and brackets are skipped,
// structured results kept aside, anything else is not classified.
func (p *codexParser) event(l line, e codexLine, base Record) error {
	var ev struct {
		Type string `json:"type"`
		Item *struct {
			Type string `json:"type"`
		} `json:"item"`
	}
	if err := json.Unmarshal(e.Payload, &ev); err != nil {
		return &LineError{Path: p.path, Line: l.N, Field: "payload", Reason: err.Error()}
	}
	typ := "event_msg/" + ev.Type
	switch {
	case slices.Contains(codexEventsSkipped, ev.Type):
		p.skip(typ)
	case ev.Type == "item_completed" && ev.Item != nil && slices.Contains(codexItemsSkipped, ev.Item.Type):
		p.skip(typ + "/" + ev.Item.Type)
	case ev.Type == "item_completed" && ev.Item != nil && slices.Contains(codexItemsAside, ev.Item.Type):
		base.Type = typ + "/" + ev.Item.Type
		p.asideRecord(base, l)
	case ev.Type == "item_completed" && ev.Item != nil:
		return &UnclassifiedError{Path: p.path, Line: l.N, Type: typ + "/" + ev.Item.Type}
	default:
		return &UnclassifiedError{Path: p.path, Line: l.N, Type: typ}
	}
	return nil
}
