package sessions

import (
	"bufio"
	"bytes"
	"context"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// message maps a message record (its first write; a changed rewrite of a
// final one is kept aside).
func (p *geminiParser) message(l line, e geminiLine) error {
	if old, ok := p.seen[e.ID]; ok {
		if bytes.Equal(old, l.Data) {
			p.skip("upsert")
		} else {
			p.aside(l, "upsert/"+e.Type)
		}
		return nil
	}
	p.seen[e.ID] = clone(l.Data)
	base := Record{Offset: l.Offset, Time: parseTime(e.Timestamp), Type: e.Type}
	var recs []Record
	var err error
	switch e.Type {
	case "user":
		recs, err = p.user(l, e)
	case "gemini":
		recs, err = p.model(l, e)
	case "info", "error", "warning":
		p.aside(l, e.Type)
		return nil
	default:
		return &UnclassifiedError{Path: p.path, Line: l.N, Type: e.Type}
	}
	if err != nil {
		return err
	}
	p.messages++
	for i, r := range recs {
		r.Keys = []string{e.ID}
		if i < len(recs)-1 {
			r.Keys = []string{e.ID + "#" + itoa(i)}
		}
		r.Offset, r.Time, r.Type = base.Offset, base.Time, base.Type
		p.index(r)
		p.emit(r)
	}
	return nil
}

// index remembers where a compression's kept copies can be found.
func (p *geminiParser) index(r Record) {
	switch r.Kind {
	case KindMessage:
		p.textKeys[r.Text] = r.Key()
	case KindToolCall:
		for _, c := range r.Calls {
			p.callKeys[c.ID] = r.Key()
		}
	case KindToolResult:
		p.callKeys["result:"+r.CallID] = r.Key()
	}
}

func (p *geminiParser) parts(l line, v jsontext.Value) ([]geminiPart, error) {
	switch v.Kind() {
	case '"':
		var s string
		_ = json.Unmarshal(v, &s)
		return []geminiPart{{Text: s}}, nil
	case '[':
		var ps []geminiPart
		if err := json.Unmarshal(v, &ps); err != nil {
			return nil, &LineError{Path: p.path, Line: l.N, Field: "content", Reason: err.Error()}
		}
		return ps, nil
	case 0, 'n':
		return nil, nil
	}
	return nil, &LineError{Path: p.path, Line: l.N, Field: "content", Reason: "want a string or an array"}
}

// user maps a user record: the prompt, context a hook or Gemini added,
// images, and the results of the model's tool calls.
func (p *geminiParser) user(l line, e geminiLine) ([]Record, error) {
	ps, err := p.parts(l, e.Content)
	if err != nil {
		return nil, err
	}
	var recs []Record
	for _, part := range ps {
		var r Record
		switch {
		case part.FunctionResponse != nil:
			r = p.result(part)
		case part.InlineData != nil:
			img := &Image{Ref: "inline", MediaType: part.InlineData.MimeType}
			img.Size, img.SHA256 = imageDigest(part.InlineData.Data, true)
			r = Record{Kind: KindImage, Role: "user", Image: img}
		case part.FunctionCall != nil:
			return nil, &UnclassifiedError{Path: p.path, Line: l.N, Type: "user/functionCall"}
		default:
			for _, r := range geminiTexts(part.Text) {
				recs = appendText(recs, r)
			}
			continue
		}
		recs = appendText(recs, r)
	}
	if len(recs) == 0 {
		recs = []Record{{Kind: KindMessage, Role: "user"}}
	}
	return recs, nil
}

// appendText adds r to recs, or its text to the last record of its class.
func appendText(recs []Record, r Record) []Record {
	if n := len(recs); n > 0 && r.Kind != KindToolResult && sameClass(recs[n-1], r) {
		recs[n-1].Text += r.Text
		return recs
	}
	return append(recs, r)
}

// geminiTexts splits a user text: a hook's context is written before the
// prompt in one part (<hook_context>…</hook_context> then the prompt).
func geminiTexts(text string) []Record {
	const end = "</hook_context>"
	if strings.HasPrefix(text, "<hook_context>") {
		if i := strings.Index(text, end); i >= 0 && strings.TrimSpace(text[i+len(end):]) != "" {
			return []Record{geminiText(text[:i+len(end)]), geminiText(strings.TrimLeft(text[i+len(end):], "\n"))}
		}
	}
	return []Record{geminiText(text)}
}

// geminiText classifies a user text: Gemini's own session context, a
// hook's context (lineage's start among them), or what the user wrote.
func geminiText(text string) Record {
	switch {
	case strings.HasPrefix(text, "<session_context>"):
		return Record{Kind: KindContext, Role: "user", Text: text, Injected: &Injected{Source: "session_context", Name: "gemini session context"}}
	case strings.HasPrefix(text, "<hook_context>"):
		return Record{Kind: KindContext, Role: "user", Text: text,
			Injected: &Injected{Source: "hook_context", Lineage: isLineageText(html.UnescapeString(text))}}
	}
	return Record{Kind: KindMessage, Role: "user", Text: text}
}

// geminiFailed matches a shell command's failing exit in its output.
var geminiFailed = lazyRegexp{expr: `(?m)^Exit Code: [1-9][0-9]*$`}

// result maps a functionResponse; one without an id answers the oldest
// call of its name still waiting.
func (p *geminiParser) result(part geminiPart) Record {
	fr := part.FunctionResponse
	id := fr.ID
	if q := p.pending[fr.Name]; id == "" && len(q) > 0 {
		id = q[0]
	}
	if q := p.pending[fr.Name]; len(q) > 0 {
		if i := slices.Index(q, id); i >= 0 {
			p.pending[fr.Name] = slices.Delete(q, i, i+1)
		}
	}
	r := Record{Kind: KindToolResult, Role: "tool", CallID: id}
	out := fr.Response.Output
	if len(fr.Response.Error) > 0 {
		out, r.IsError = fr.Response.Error, true
	}
	if out.Kind() == '"' {
		_ = json.Unmarshal(out, &r.Text)
	} else {
		r.Text = string(out)
	}
	r.IsError = r.IsError || geminiFailed.MatchString(r.Text)
	if r.CallID == "" {
		r.CallID = fr.Name
	}
	return r
}

// model maps a model message: its thoughts, then its text and tool calls.
func (p *geminiParser) model(l line, e geminiLine) ([]Record, error) {
	var recs []Record
	var thoughts string
	for _, t := range e.Thoughts {
		thoughts = joinText(thoughts, strings.TrimSpace(strings.TrimPrefix(t.Subject+": "+t.Description, ": ")))
	}
	if thoughts != "" {
		recs = append(recs, Record{Kind: KindReasoning, Role: "assistant", Text: thoughts})
	}
	ps, err := p.parts(l, e.Content)
	if err != nil {
		return nil, err
	}
	r := Record{Kind: KindMessage, Role: "assistant"}
	for _, part := range ps {
		r.Text += part.Text
	}
	for _, c := range e.ToolCalls {
		if c.ID == "" {
			return nil, &LineError{Path: p.path, Line: l.N, Field: "toolCalls.id", Reason: "missing"}
		}
		args := string(c.Args)
		if args == "" || args == "null" {
			args = "{}"
		}
		r.Kind = KindToolCall
		r.Calls = append(r.Calls, ToolCall{ID: c.ID, Name: c.Name, Arguments: args})
		p.pending[c.Name] = append(p.pending[c.Name], c.ID)
	}
	if e.Model != "" {
		p.b.Session.Model = e.Model
		r.Turn = &Turn{Model: e.Model}
		if t := e.Tokens; t != nil {
			r.Turn.Input, r.Turn.Output, r.Turn.CacheRead = t.Input, t.Output, t.Cached
		}
	}
	return append(recs, r), nil
}

// geminiHistory is an entry of $set.messages (API-history shaped).
type geminiHistory struct {
	ID      string         `json:"id"`
	Type    string         `json:"type"`
	Content jsontext.Value `json:"content"`
}

// set maps a $set line: a new history (a resume's reload, or a
// compression's summary and kept messages), or metadata.
func (p *geminiParser) set(l line, raw jsontext.Value) error {
	var s map[string]jsontext.Value
	if err := json.Unmarshal(raw, &s); err != nil {
		return &LineError{Path: p.path, Line: l.N, Field: "$set", Reason: err.Error()}
	}
	var keys []string
	for k := range s {
		if k != "lastUpdated" && k != "sessionId" && k != "messages" {
			keys = append(keys, k)
		}
	}
	if msgs, ok := s["messages"]; ok {
		if err := p.history(l, msgs); err != nil {
			return err
		}
	}
	switch {
	case len(keys) > 0:
		slices.Sort(keys)
		p.aside(l, "$set/"+strings.Join(keys, ","))
	case s["messages"] == nil:
		p.skip("$set/lastUpdated")
	}
	return nil
}

// history reads a replaced history: Gemini's session context the first
// time it appears, and after a compression the summary (a state snapshot)
// with the records the new history kept.
func (p *geminiParser) history(l line, v jsontext.Value) error {
	var hs []geminiHistory
	if err := json.Unmarshal(v, &hs); err != nil {
		return &LineError{Path: p.path, Line: l.N, Field: "$set.messages", Reason: err.Error()}
	}
	var snapshot string
	var kept []string
	news := 0
	for _, h := range hs {
		if _, ok := p.seen[h.ID]; ok {
			continue
		}
		ps, _ := p.parts(l, h.Content)
		text := ""
		for _, part := range ps {
			text += part.Text
			if fc := part.FunctionCall; fc != nil && p.callKeys[fc.ID] != "" {
				kept = append(kept, p.callKeys[fc.ID])
			}
			if fr := part.FunctionResponse; fr != nil && p.callKeys["result:"+fr.ID] != "" {
				kept = append(kept, p.callKeys["result:"+fr.ID])
			}
		}
		switch {
		case strings.HasPrefix(text, "<session_context>"):
			p.seen[h.ID] = nil
			r := geminiText(text)
			r.Keys, r.Offset, r.Type = []string{h.ID}, l.Offset, "$set/messages"
			p.emit(r)
			news++
		case strings.HasPrefix(text, "<state_snapshot>"):
			p.seen[h.ID] = nil
			snapshot = text
		default:
			if k := p.textKeys[text]; k != "" && text != "" {
				kept = append(kept, k)
			}
		}
	}
	if snapshot == "" {
		if news == 0 {
			p.skip("$set/messages")
		}
		return nil
	}
	for _, h := range hs {
		p.seen[h.ID] = nil
	}
	slices.Sort(kept)
	p.emit(Record{Keys: []string{asideKey("compression", l.Offset, l.Data)}, Offset: l.Offset, Type: "$set/messages", Kind: KindCompaction,
		Compaction: &Compaction{Summary: snapshot, To: p.prev, Kept: slices.Compact(kept), Trigger: "auto"}})
	return nil
}

// origin links a subagent to its parent's invoke_agent call, and lists a
// session's subagent files for the importer.
func (p *geminiParser) origin(ctx context.Context) {
	dir := filepath.Dir(p.path)
	id := p.b.Session.ID
	p.b.Session.Cwd = firstNonEmpty(p.b.Session.Cwd, geminiProjectOf(p.path))
	if !p.subagent {
		p.b.Related = geminiSubagents(filepath.Join(dir, id))
		return
	}
	parent := filepath.Base(dir)
	call, purpose := geminiSpawnCall(ctx, filepath.Dir(dir), parent, id)
	p.b.Session.Origin = &Link{Kind: LinkSubagent, Harness: Gemini, Session: parent, Key: call, Purpose: purpose}
}

// geminiSubagents lists the subagent logs in a session's folder, sorted.
func geminiSubagents(dir string) []Source {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Source
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, Source{Harness: Gemini, Path: filepath.Join(dir, e.Name())})
		}
	}
	return out
}

// geminiSpawnCall finds the invoke_agent call in the parent's session
// files that started the subagent id: its call id and prompt.
func geminiSpawnCall(ctx context.Context, chats, parent, id string) (call, purpose string) {
	if len(parent) < 8 {
		return "", ""
	}
	entries, err := os.ReadDir(chats)
	if err != nil {
		return "", ""
	}
	needle := []byte(`"agentId":"` + id + `"`)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "session-") || !strings.HasSuffix(e.Name(), "-"+parent[:8]+".jsonl") {
			continue
		}
		t, err := readTail(filepath.Join(chats, e.Name()), Cursor{})
		if err != nil {
			continue
		}
		for _, l := range t.Lines {
			if ctx.Err() != nil {
				return "", ""
			}
			if !bytes.Contains(l.Data, needle) {
				continue
			}
			var g geminiLine
			if json.Unmarshal(l.Data, &g) != nil {
				continue
			}
			for _, c := range g.ToolCalls {
				if c.AgentID == id {
					var a struct {
						Prompt string `json:"prompt"`
					}
					_ = json.Unmarshal(c.Args, &a)
					return c.ID, a.Prompt
				}
			}
		}
	}
	return "", ""
}

// geminiHeaderID reads the session id from a log's first line (a read
// from a cursor starts after it).
func geminiHeaderID(path string) string {
	r, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return ""
	}
	defer r.Close()
	f, err := r.Open(filepath.Base(path))
	if err != nil {
		return ""
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 4096)
	first, _ := br.ReadSlice('\n')
	var h struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(bytes.TrimSpace(first), &h) != nil {
		return ""
	}
	return h.SessionID
}

// geminiProjectOf is the project folder a log belongs to: Gemini names
// tmp/<project>/ in projects.json and writes the path into its
// .project_root file. "" when neither says.
func geminiProjectOf(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "chats" {
		dir = filepath.Dir(dir) // a subagent's chats/<parent>/<id>.jsonl
	}
	if filepath.Base(dir) != "chats" {
		return ""
	}
	project := filepath.Dir(dir)
	if root := strings.TrimSpace(readFirst(filepath.Join(project, ".project_root"))); filepath.IsAbs(root) {
		return root
	}
	gemini := filepath.Dir(filepath.Dir(project))
	var m struct {
		Projects map[string]string `json:"projects"`
	}
	data, err := os.ReadFile(filepath.Join(gemini, "projects.json"))
	if err != nil || len(data) > 1<<20 || json.Unmarshal(data, &m) != nil {
		return ""
	}
	var found []string
	for p, name := range m.Projects {
		if name == filepath.Base(project) {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		return ""
	}
	return found[0]
}
