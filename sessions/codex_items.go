package sessions

import (
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// codexMeta is the part of a session_meta payload the reader uses.
type codexMeta struct {
	ID             string         `json:"id"`
	Timestamp      string         `json:"timestamp"`
	Cwd            string         `json:"cwd"`
	CLIVersion     string         `json:"cli_version"`
	ForkedFromID   string         `json:"forked_from_id"`
	ParentThreadID string         `json:"parent_thread_id"`
	ThreadSource   string         `json:"thread_source"`
	Source         jsontext.Value `json:"source"`
	AgentNickname  string         `json:"agent_nickname"`
	HistoryBase    *codexBase     `json:"history_base"`
	Instructions   *struct {
		Text string `json:"text"`
	} `json:"base_instructions"`
	Git *struct {
		Branch string `json:"branch"`
	} `json:"git"`
}

// codexBase is where a fork or rewind segment continues another file.
type codexBase struct {
	ThreadID     string `json:"thread_id"`
	EndOrdinal   int64  `json:"end_ordinal_exclusive"`
	EndByteOffet int64  `json:"end_byte_offset"`
}

// codexItem is a response_item payload.
type codexItem struct {
	Type      string         `json:"type"`
	ID        string         `json:"id"`
	Role      string         `json:"role"`
	Content   []codexPart    `json:"content"`
	Summary   []codexPart    `json:"summary"`
	Name      string         `json:"name"`
	Arguments jsontext.Value `json:"arguments"`
	Input     string         `json:"input"`
	CallID    string         `json:"call_id"`
	Output    jsontext.Value `json:"output"`
	Tools     jsontext.Value `json:"tools"`
	Pass      *struct {
		Items []struct {
			Provenance struct {
				Type string `json:"type"`
				Hook bool   `json:"hook"`
			} `json:"provenance"`
		} `json:"content_item_metadata"`
	} `json:"internal_chat_message_metadata_passthrough"`
}

type codexPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

// sessionMeta reads the file's header: the session's fields, the system
// prompt Codex sent (a context record), the line itself kept aside.
func (p *codexParser) sessionMeta(l line, e codexLine, base Record) error {
	var m codexMeta
	if err := json.Unmarshal(e.Payload, &m); err != nil {
		return &LineError{Path: p.path, Line: l.N, Field: "payload", Reason: err.Error()}
	}
	if p.meta == nil {
		p.meta = &m
		s := &p.b.Session
		s.ID = firstNonEmpty(m.ID, s.ID)
		s.Started = parseTime(m.Timestamp)
		s.Cwd, s.Version = m.Cwd, m.CLIVersion
		if m.Git != nil {
			s.GitBranch = m.Git.Branch
		}
		if m.AgentNickname != "" {
			s.Title = m.AgentNickname
		}
	}
	if m.Instructions != nil && m.Instructions.Text != "" {
		r := base
		r.Keys = []string{base.Key() + "#0"}
		r.Kind, r.Role, r.Text = KindContext, "system", m.Instructions.Text
		r.Injected = &Injected{Source: "base_instructions", Name: "codex system prompt"}
		p.emit(r)
	}
	p.asideRecord(base, l)
	return nil
}

// responseItem maps what the model saw or said.
func (p *codexParser) responseItem(l line, e codexLine, base Record) error {
	var it codexItem
	if err := json.Unmarshal(e.Payload, &it); err != nil {
		return &LineError{Path: p.path, Line: l.N, Field: "payload", Reason: err.Error()}
	}
	base.Type = "response_item/" + it.Type
	switch it.Type {
	case "message":
		return p.message(l, it, base)
	case "reasoning":
		base.Kind, base.Role, base.Raw = KindReasoning, "assistant", clone(l.Data)
		for _, s := range it.Summary {
			base.Text = joinText(base.Text, s.Text)
		}
		p.emit(base)
	case "function_call", "custom_tool_call", "tool_search_call":
		return p.call(l, it, base)
	case "function_call_output", "custom_tool_call_output", "tool_search_output":
		return p.output(l, it, base)
	default:
		return &UnclassifiedError{Path: p.path, Line: l.N, Type: base.Type}
	}
	return nil
}

// message splits a message item into records by what each part is: the
// user's or the model's text, context Codex or a hook injected, images.
func (p *codexParser) message(l line, it codexItem, base Record) error {
	var recs []Record
	for i, part := range it.Content {
		r, err := p.part(l, it, i, part)
		if err != nil {
			return err
		}
		if n := len(recs); n > 0 && sameClass(recs[n-1], r) {
			recs[n-1].Text = joinText(recs[n-1].Text, r.Text)
			continue
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		recs = []Record{{Kind: KindMessage, Role: it.Role}}
	}
	for i, r := range recs {
		r.Keys = []string{base.Key()}
		if i < len(recs)-1 {
			r.Keys = []string{base.Key() + "#" + itoa(i)}
		}
		r.Offset, r.Time, r.Type = base.Offset, base.Time, base.Type
		p.emit(r)
	}
	if it.ID != "" {
		if p.msgKeys == nil {
			p.msgKeys = map[string]string{}
		}
		p.msgKeys[it.ID] = base.Key()
	}
	return nil
}

func sameClass(a, b Record) bool {
	if a.Kind != b.Kind || a.Role != b.Role || a.Kind == KindImage {
		return false
	}
	if a.Injected == nil || b.Injected == nil {
		return a.Injected == nil && b.Injected == nil
	}
	return *a.Injected == *b.Injected
}

// part classifies one content part of a message item.
func (p *codexParser) part(l line, it codexItem, i int, part codexPart) (Record, error) {
	prov, hook := "", false
	if it.Pass != nil && i < len(it.Pass.Items) {
		prov, hook = it.Pass.Items[i].Provenance.Type, it.Pass.Items[i].Provenance.Hook
	}
	switch part.Type {
	case "input_image", "output_image":
		return Record{Kind: KindImage, Role: it.Role, Image: dataURLImage(part.ImageURL)}, nil
	case "input_text", "output_text", "text":
	default:
		return Record{}, &UnclassifiedError{Path: p.path, Line: l.N, Type: "response_item/message/" + part.Type}
	}
	switch {
	case it.Role == "assistant":
		return Record{Kind: KindMessage, Role: "assistant", Text: part.Text}, nil
	case it.Role == "developer" || it.Role == "system":
		src := "developer"
		if prov != "" {
			src += "/" + prov
		}
		return Record{Kind: KindContext, Role: "system", Text: part.Text,
			Injected: &Injected{Source: src, Lineage: hook && isLineageText(part.Text)}}, nil
	case it.Role == "user" && (prov == "agents_md" || prov == "harness" || prov == "skills"):
		return Record{Kind: KindContext, Role: "user", Text: part.Text,
			Injected: &Injected{Source: "user/" + prov, Lineage: hook && isLineageText(part.Text)}}, nil
	case it.Role == "user":
		return Record{Kind: KindMessage, Role: "user", Text: part.Text}, nil
	}
	return Record{}, &LineError{Path: p.path, Line: l.N, Field: "payload.role", Reason: "unknown role " + strings.TrimSpace(it.Role)}
}

// call adds a tool call to the run of calls one response made.
func (p *codexParser) call(l line, it codexItem, base Record) error {
	if it.CallID == "" {
		return &LineError{Path: p.path, Line: l.N, Field: "payload.call_id", Reason: "missing on a " + it.Type}
	}
	c := ToolCall{ID: it.CallID, Name: it.Name}
	switch it.Type {
	case "function_call":
		if it.Arguments.Kind() == '"' {
			_ = json.Unmarshal(it.Arguments, &c.Arguments)
		} else {
			c.Arguments = string(it.Arguments)
		}
	case "custom_tool_call":
		data, _ := json.Marshal(map[string]string{"input": it.Input})
		c.Arguments = string(data)
	case "tool_search_call":
		c.Name = firstNonEmpty(c.Name, "tool_search")
		c.Arguments = string(it.Arguments)
	}
	if c.Arguments == "" {
		c.Arguments = "{}"
	}
	if p.calls != nil {
		p.calls.Keys = append(p.calls.Keys, base.Key())
		p.calls.Calls = append(p.calls.Calls, c)
		return nil
	}
	p.flush()
	base.Kind, base.Role, base.Calls = KindToolCall, "assistant", []ToolCall{c}
	p.calls = &base
	return nil
}

// codexFailed matches what a failed call's output says.
// It is compiled on first use (nothing is built at start-up).
var codexFailed = lazyRegexp{expr: `(?m)^(Process exited with code [1-9][0-9]*|Exit code: [1-9][0-9]*)$|^apply_patch verification failed`}

// output maps a tool's output; images in it become records of their own.
func (p *codexParser) output(l line, it codexItem, base Record) error {
	if it.CallID == "" {
		return &LineError{Path: p.path, Line: l.N, Field: "payload.call_id", Reason: "missing on a " + it.Type}
	}
	base.Kind, base.Role, base.CallID = KindToolResult, "tool", it.CallID
	var imgs []Record
	out := it.Output
	if it.Type == "tool_search_output" {
		out = it.Tools
	}
	switch out.Kind() {
	case '"':
		_ = json.Unmarshal(out, &base.Text)
	case '[':
		var parts []codexPart
		if err := json.Unmarshal(out, &parts); err != nil {
			return &LineError{Path: p.path, Line: l.N, Field: "payload.output", Reason: err.Error()}
		}
		for _, part := range parts {
			switch part.Type {
			case "input_image", "output_image":
				imgs = append(imgs, Record{Kind: KindImage, Role: "user", Image: dataURLImage(part.ImageURL)})
			case "input_text", "output_text", "text":
				base.Text = joinText(base.Text, part.Text)
			case "function", "namespace":
				base.Text = string(out)
			default:
				return &UnclassifiedError{Path: p.path, Line: l.N, Type: base.Type + "/" + part.Type}
			}
		}
	case 0:
	default:
		base.Text = string(out)
	}
	base.IsError = codexFailed.MatchString(base.Text)
	p.emit(base)
	for i, r := range imgs {
		r.Keys = []string{base.Key() + "#img" + itoa(i)}
		r.Offset, r.Time, r.Type = base.Offset, base.Time, base.Type
		p.emit(r)
	}
	return nil
}

// compacted is Codex's summary of the history before it; the items it
// kept verbatim (the user's prompts) are the records pinned beside it.
func (p *codexParser) compacted(l line, e codexLine, base Record) error {
	var c struct {
		Message     string `json:"message"`
		Replacement []struct {
			ID string `json:"id"`
		} `json:"replacement_history"`
	}
	if err := json.Unmarshal(e.Payload, &c); err != nil {
		return &LineError{Path: p.path, Line: l.N, Field: "payload", Reason: err.Error()}
	}
	p.flush()
	// Everything before the compacted line is what the summary stands for.
	cp := &Compaction{Summary: c.Message, To: p.prev}
	for _, r := range c.Replacement {
		if k, ok := p.msgKeys[r.ID]; ok {
			cp.Kept = append(cp.Kept, k)
		}
	}
	base.Kind, base.Compaction = KindCompaction, cp
	p.emit(base)
	return nil
}

// dataURLImage keeps an image sent as a data: URL by reference.
func dataURLImage(u string) *Image {
	img := &Image{Ref: "inline"}
	head, data, ok := strings.Cut(u, ",")
	if !ok || !strings.HasPrefix(head, "data:") {
		img.Ref = u
		return img
	}
	img.MediaType = strings.TrimSuffix(strings.TrimPrefix(head, "data:"), ";base64")
	img.Size, img.SHA256 = imageDigest(data, strings.HasSuffix(head, ";base64"))
	return img
}
