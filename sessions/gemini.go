package sessions

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// GeminiReader reads Gemini CLI sessions: ~/.gemini/tmp/<project>/chats/
// session-<UTC minute>-<id8>.jsonl, an operation log. A header line, then
// message records upserted by id (a model message is written again with
// its tool calls), {"$set": …} updates (messages replaces the whole
// history: at every resume, with the same ids, and after a compression,
// with new ids and the summary first) and {"$rewindTo": id} (that message
// and all after it are dropped). Subagents write chats/<parentId>/<id>.jsonl.
type GeminiReader struct{}

// Harness is Gemini.
func (GeminiReader) Harness() Harness { return Gemini }

// geminiLine is every field a line of any kind may have.
type geminiLine struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	Timestamp string         `json:"timestamp"`
	Content   jsontext.Value `json:"content"`
	Thoughts  []struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
	} `json:"thoughts"`
	Tokens *struct {
		Input  int64 `json:"input"`
		Output int64 `json:"output"`
		Cached int64 `json:"cached"`
	} `json:"tokens"`
	Model     string         `json:"model"`
	ToolCalls []geminiCall   `json:"toolCalls"`
	SessionID string         `json:"sessionId"`
	StartTime string         `json:"startTime"`
	Kind      string         `json:"kind"`
	Set       jsontext.Value `json:"$set"`
	RewindTo  *string        `json:"$rewindTo"`
}

type geminiCall struct {
	ID      string         `json:"id"`
	Name    string         `json:"name"`
	Args    jsontext.Value `json:"args"`
	AgentID string         `json:"agentId"`
}

// geminiPart is a part of a message's content.
type geminiPart struct {
	Text       string `json:"text"`
	InlineData *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FunctionCall     *geminiCall `json:"functionCall"`
	FunctionResponse *struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Response struct {
			Output jsontext.Value `json:"output"`
			Error  jsontext.Value `json:"error"`
		} `json:"response"`
	} `json:"functionResponse"`
}

// Read reads a Gemini session log from the cursor on.
func (GeminiReader) Read(ctx context.Context, src Source, from Cursor) (Batch, error) {
	t, err := readTail(src.Path, from)
	if err != nil {
		return Batch{}, err
	}
	p := newGeminiParser(src.Path, from)
	if from.Offset > 0 {
		p.b.Session.ID = firstNonEmpty(geminiHeaderID(src.Path), p.b.Session.ID)
	}
	if all := joinLines(t.Lines); from.Offset > 0 && (bytes.Contains(all, []byte(`"$rewindTo"`)) || bytes.Contains(all, []byte(`<state_snapshot>`))) {
		// A rewind or a compression names messages read before: learn the
		// file's line so far (only then: O(file) once per such event).
		if err := p.learn(ctx, src.Path, from); err != nil {
			return Batch{}, err
		}
	}
	for i, l := range t.Lines {
		if i%256 == 0 && ctx.Err() != nil {
			return Batch{}, ctx.Err()
		}
		if err := p.line(l); err != nil {
			return Batch{}, err
		}
	}
	p.b.Next = t.Next
	p.finish()
	if from.Offset == 0 {
		p.origin(ctx)
	}
	return p.b, nil
}

func joinLines(ls []line) []byte {
	var b []byte
	for _, l := range ls {
		b = append(b, l.Data...)
	}
	return b
}

// geminiParser holds the state of one read.
type geminiParser struct {
	path string
	b    Batch
	prev string
	// parentOf is each message record's parent, for $rewindTo.
	parentOf map[string]string
	// seen are the message ids read, with each one's line, for upserts.
	seen map[string][]byte
	// held is a model message written before it is final (no text and no
	// tool calls yet): the next line decides.
	held *heldRecord
	// textKeys and callKeys find what a compression kept: messages by
	// their text, tool calls and results by their call id.
	textKeys, callKeys map[string]string
	// pending are tool calls without a result yet, by name, for a
	// functionResponse that carries no id.
	pending  map[string][]string
	subagent bool
	messages int
}

type heldRecord struct {
	l line
	e geminiLine
}

func newGeminiParser(path string, from Cursor) *geminiParser {
	p := &geminiParser{path: path, prev: from.LastKey, parentOf: map[string]string{}, seen: map[string][]byte{},
		textKeys: map[string]string{}, callKeys: map[string]string{}, pending: map[string][]string{}}
	p.b.Session.Harness = Gemini
	p.b.Session.ID = geminiFileID(path)
	return p
}

// geminiFileID is the session id a file's name gives: a subagent's own id,
// or the short id of a session file (the header gives the whole one).
func geminiFileID(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if strings.HasPrefix(name, "session-") {
		return name[strings.LastIndexByte(name, '-')+1:]
	}
	return name
}

// learn reads the file before the cursor to know its messages' parents.
func (p *geminiParser) learn(ctx context.Context, path string, from Cursor) error {
	t, err := readTail(path, Cursor{})
	if err != nil {
		return err
	}
	q := newGeminiParser(path, Cursor{})
	for _, l := range t.Lines {
		if l.Offset >= from.Offset || ctx.Err() != nil {
			break
		}
		_ = q.line(l)
	}
	q.finish()
	p.parentOf, p.seen, p.textKeys, p.callKeys = q.parentOf, q.seen, q.textKeys, q.callKeys
	return nil
}

func (p *geminiParser) line(l line) error {
	var e geminiLine
	if err := json.Unmarshal(l.Data, &e); err != nil {
		return &LineError{Path: p.path, Line: l.N, Reason: "not a JSON object: " + err.Error()}
	}
	if p.held != nil && (e.ID != p.held.e.ID || e.Type != "gemini") && e.RewindTo == nil && len(e.Set) == 0 {
		// Another record: the held one was final as it was.
		h := p.held
		p.held = nil
		if err := p.message(h.l, h.e); err != nil {
			return err
		}
	}
	switch {
	case e.RewindTo != nil:
		p.release()
		return p.rewind(l, *e.RewindTo)
	case len(e.Set) > 0:
		return p.set(l, e.Set)
	case e.Type == "" && e.SessionID != "":
		return p.header(l, e)
	case e.Type == "":
		return &LineError{Path: p.path, Line: l.N, Field: "type", Reason: "missing"}
	case e.ID == "":
		return &LineError{Path: p.path, Line: l.N, Field: "id", Reason: "missing on a " + e.Type + " record"}
	case e.Type == "gemini" && !geminiFinal(e):
		if p.held != nil {
			p.skip("superseded")
		}
		p.held = &heldRecord{l: l, e: e}
		return nil
	case e.Type == "gemini" && p.held != nil && p.held.e.ID == e.ID:
		// The final write replaces the first.
		p.skip("superseded")
		p.held = nil
	}
	return p.message(l, e)
}

// geminiFinal: a model message with text or tool calls is what the model
// said; one with neither is written again when the response completes.
func geminiFinal(e geminiLine) bool {
	if len(e.ToolCalls) > 0 {
		return true
	}
	var s string
	if e.Content.Kind() == '"' {
		_ = json.Unmarshal(e.Content, &s)
		return s != ""
	}
	return e.Content.Kind() == '['
}

// release emits a held message as it is (a rewind or the end came first).
func (p *geminiParser) release() {
	if h := p.held; h != nil {
		p.held = nil
		_ = p.message(h.l, h.e)
	}
}

// finish ends a read: a message still held stays unread, so the next read
// sees its final write; the cursor stops before it.
func (p *geminiParser) finish() {
	if h := p.held; h != nil {
		p.b.Next.Offset, p.b.Next.Line = h.l.Offset, h.l.N-1
		p.held = nil
		// Lines after it are read again next time (their keys make that
		// idempotent): drop them from this batch.
		keep := p.b.Records[:0]
		for _, r := range p.b.Records {
			if r.Offset < h.l.Offset {
				keep = append(keep, r)
			}
		}
		p.b.Records = keep
	}
	p.b.Next.LastKey = p.prev
	for i := len(p.b.Records) - 1; i >= 0; i-- {
		if r := p.b.Records[i]; !r.Aside {
			p.b.Next.LastKey = r.Key()
			break
		}
	}
}

func (p *geminiParser) emit(r Record) {
	if !r.Aside {
		r.Parent = p.prev
		p.prev = r.Key()
		p.parentOf[r.Key()] = r.Parent
	}
	p.b.Records = append(p.b.Records, r)
}

func (p *geminiParser) aside(l line, typ string) {
	p.emit(Record{Keys: []string{asideKey(typ, l.Offset, l.Data)}, Offset: l.Offset, Kind: KindMetadata, Type: typ, Aside: true, Raw: clone(l.Data)})
}

func (p *geminiParser) skip(typ string) {
	if p.b.Skipped == nil {
		p.b.Skipped = map[string]int{}
	}
	p.b.Skipped[typ]++
}

// header reads a header line: the first names the session, later ones
// (each resume writes one) are kept aside.
func (p *geminiParser) header(l line, e geminiLine) error {
	s := &p.b.Session
	if s.Started.IsZero() {
		s.ID = e.SessionID
		s.Started = parseTime(e.StartTime)
		p.subagent = e.Kind == "subagent"
	}
	p.aside(l, "header")
	return nil
}

// rewind drops the named message and what followed it: the next record
// follows the message before it, and the dropped line stays a branch.
func (p *geminiParser) rewind(l line, id string) error {
	parent, ok := p.parentOf[id]
	if !ok {
		return &LineError{Path: p.path, Line: l.N, Field: "$rewindTo", Reason: "names message " + id + ", which the file does not hold"}
	}
	p.aside(l, "$rewindTo")
	p.prev = parent
	return nil
}
