package sessions

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

func itoa(i int) string { return strconv.Itoa(i) }

// blocks decodes a message's content: a string is one text block.
func (p *claudeParser) blocks(l line, v jsontext.Value) ([]claudeBlock, error) {
	switch v.Kind() {
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, &LineError{Path: p.path, Line: l.N, Field: "message.content", Reason: err.Error()}
		}
		return []claudeBlock{{Type: "text", Text: s}}, nil
	case '[':
		var bs []claudeBlock
		if err := json.Unmarshal(v, &bs); err != nil {
			return nil, &LineError{Path: p.path, Line: l.N, Field: "message.content", Reason: err.Error()}
		}
		return bs, nil
	}
	return nil, &LineError{Path: p.path, Line: l.N, Field: "message.content", Reason: "want a string or an array of blocks"}
}

// assistant merges the per-block entries of one API response: thinking is
// a reasoning record of its own, text and tool_use blocks of one response
// chained entry after entry make one record.
func (p *claudeParser) assistant(l line, e claudeLine, base Record) error {
	if e.Message == nil {
		return &LineError{Path: p.path, Line: l.N, Field: "message", Reason: "missing on an assistant entry"}
	}
	bs, err := p.blocks(l, e.Message.Content)
	if err != nil {
		return err
	}
	cont := p.group != nil && p.groupMsgID != "" && p.groupMsgID == e.Message.ID && slices.Contains(p.group.Keys, e.ParentUUID)
	var thinking []Record
	for _, b := range bs {
		switch b.Type {
		case "thinking", "redacted_thinking":
			raw, _ := json.Marshal(map[string]string{"signature": b.Signature})
			thinking = append(thinking, Record{Kind: KindReasoning, Role: "assistant", Text: b.Thinking, Raw: raw})
		case "text", "tool_use":
		default:
			return &UnclassifiedError{Path: p.path, Line: l.N, Type: "assistant/" + b.Type}
		}
	}
	if len(thinking) == len(bs) {
		p.flush()
		if len(thinking) > 0 {
			thinking[0].Turn = p.turn(e.Message)
		}
		p.chain(base, thinking)
		return nil
	}
	if !cont || len(thinking) > 0 {
		p.flush()
		if len(thinking) > 0 {
			// Thinking and text in one entry (older versions): the thinking
			// goes first under its own key.
			for i := range thinking {
				thinking[i].Keys = []string{base.Key() + "#t" + itoa(i)}
				thinking[i].Parent, thinking[i].Offset, thinking[i].Time, thinking[i].Type = base.Parent, base.Offset, base.Time, base.Type
				base.Parent = thinking[i].Key()
				p.emit(thinking[i])
			}
		}
		g := base
		g.Kind, g.Role, g.Turn = KindMessage, "assistant", p.turn(e.Message)
		p.group, p.groupMsgID = &g, e.Message.ID
	} else {
		p.group.Keys = append(p.group.Keys, e.UUID)
	}
	g := p.group
	for _, b := range bs {
		switch b.Type {
		case "text":
			g.Text = joinText(g.Text, b.Text)
		case "tool_use":
			args := string(b.Input)
			if args == "" || jsontext.Value(args).Kind() != '{' {
				wrapped, _ := json.Marshal(map[string]jsontext.Value{"input": jsontext.Value(orNull(args))})
				args = string(wrapped)
			}
			g.Calls = append(g.Calls, ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	return nil
}

func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "\n\n" + b
}

// user maps a user entry: a prompt, tool results, images, harness text
// (isMeta) or a compaction's summary.
func (p *claudeParser) user(l line, e claudeLine, base Record) error {
	if e.Message == nil {
		return &LineError{Path: p.path, Line: l.N, Field: "message", Reason: "missing on a user entry"}
	}
	bs, err := p.blocks(l, e.Message.Content)
	if err != nil {
		return err
	}
	if e.IsCompactSummary {
		return p.summary(l, e, base, bs)
	}
	var recs []Record
	text := func(t string) {
		if n := len(recs); n > 0 && recs[n-1].Kind != KindToolResult && recs[n-1].Kind != KindImage {
			recs[n-1].Text = joinText(recs[n-1].Text, t)
			return
		}
		r := Record{Kind: KindMessage, Role: "user", Text: t}
		if e.IsMeta {
			r = Record{Kind: KindContext, Role: "user", Text: t, Injected: &Injected{Source: "isMeta", Lineage: isLineageText(t)}}
		}
		recs = append(recs, r)
	}
	for _, b := range bs {
		switch b.Type {
		case "text":
			text(b.Text)
		case "image", "document":
			recs = append(recs, p.image(b))
		case "tool_result":
			rs, err := p.toolResult(l, b)
			if err != nil {
				return err
			}
			recs = append(recs, rs...)
		default:
			return &UnclassifiedError{Path: p.path, Line: l.N, Type: "user/" + b.Type}
		}
	}
	if len(recs) == 0 {
		recs = append(recs, Record{Kind: KindMetadata, Raw: clone(l.Data)})
	}
	p.chain(base, recs)
	return nil
}

// toolResult maps a tool_result block: its text, then any image it holds.
func (p *claudeParser) toolResult(l line, b claudeBlock) ([]Record, error) {
	r := Record{Kind: KindToolResult, Role: "tool", CallID: b.ToolUseID, IsError: b.IsError}
	var imgs []Record
	switch b.Content.Kind() {
	case '"':
		_ = json.Unmarshal(b.Content, &r.Text)
	case '[':
		var inner []claudeBlock
		if err := json.Unmarshal(b.Content, &inner); err != nil {
			return nil, &LineError{Path: p.path, Line: l.N, Field: "tool_result.content", Reason: err.Error()}
		}
		for _, ib := range inner {
			switch ib.Type {
			case "text":
				r.Text = joinText(r.Text, ib.Text)
			case "image", "document":
				imgs = append(imgs, p.image(ib))
			default:
				return nil, &UnclassifiedError{Path: p.path, Line: l.N, Type: "tool_result/" + ib.Type}
			}
		}
	}
	if r.CallID == "" {
		return nil, &LineError{Path: p.path, Line: l.N, Field: "tool_use_id", Reason: "missing on a tool_result"}
	}
	return append([]Record{r}, imgs...), nil
}

// image keeps an image by reference: its type, size and hash.
func (p *claudeParser) image(b claudeBlock) Record {
	img := &Image{Ref: "inline"}
	if s := b.Source; s != nil {
		img.MediaType = s.MediaType
		switch {
		case s.Data != "":
			data, err := base64.StdEncoding.DecodeString(s.Data)
			if err != nil {
				data = []byte(s.Data)
			}
			sum := sha256.Sum256(data)
			img.Size, img.SHA256 = int64(len(data)), hex.EncodeToString(sum[:])
		case s.Path != "":
			img.Ref = s.Path
		case s.URL != "":
			img.Ref = s.URL
		}
	}
	return Record{Kind: KindImage, Role: "user", Image: img}
}

// system maps a system entry: a compaction boundary, or bookkeeping.
func (p *claudeParser) system(l line, e claudeLine, base Record) error {
	base.Type = "system/" + e.Subtype
	switch {
	case e.Subtype == "compact_boundary":
		// The boundary starts a new root in the file; in tract it follows
		// the line it compacted, and the summary entry after it (maybe
		// after re-attached context) is the compaction.
		c := &Compaction{To: e.LogicalParentUUID}
		if m := e.CompactMetadata; m != nil {
			c.Trigger = m.Trigger
			if m.PreservedMessages != nil {
				c.Kept = m.PreservedMessages.UUIDs
			}
		}
		p.boundary = c
		base.Kind, base.Raw, base.Parent = KindMetadata, clone(l.Data), e.LogicalParentUUID
		p.emit(base)
		return nil
	case slices.Contains(claudeSystem, e.Subtype):
		base.Kind, base.Raw = KindMetadata, clone(l.Data)
		p.emit(base)
		return nil
	}
	return &UnclassifiedError{Path: p.path, Line: l.N, Type: "system/" + e.Subtype}
}

// summary maps a compaction's summary entry: the compaction of the
// boundary before it (To, Kept, Trigger), or of an unknown range when the
// boundary was in an earlier read (the mapper finds it).
func (p *claudeParser) summary(l line, e claudeLine, base Record, bs []claudeBlock) error {
	var text string
	for _, b := range bs {
		text = joinText(text, b.Text)
	}
	c := &Compaction{Summary: text}
	if p.boundary != nil {
		c.To, c.Kept, c.Trigger = p.boundary.To, p.boundary.Kept, p.boundary.Trigger
		p.boundary = nil
	}
	base.Kind, base.Role, base.Type, base.Compaction = KindCompaction, "user", "user/isCompactSummary", c
	p.emit(base)
	return nil
}

// attachment maps context the harness attached.
func (p *claudeParser) attachment(l line, e claudeLine, base Record) error {
	var a struct {
		Type    string         `json:"type"`
		Content jsontext.Value `json:"content"`
		Files   []struct {
			Content string `json:"content"`
		} `json:"files"`
		Text string `json:"text"`
		// AddedBlocks: the MCP servers' instructions (mcp_instructions_delta).
		AddedBlocks []string `json:"addedBlocks"`
	}
	if err := json.Unmarshal(e.Attachment, &a); err != nil || a.Type == "" {
		return &LineError{Path: p.path, Line: l.N, Field: "attachment.type", Reason: "missing"}
	}
	base.Type = "attachment/" + a.Type
	switch {
	case a.Type == "hook_success":
		base.Kind, base.Raw = KindMetadata, clone(l.Data)
		p.emit(base)
		return nil
	case !slices.Contains(claudeContext, a.Type):
		return &UnclassifiedError{Path: p.path, Line: l.N, Type: "attachment/" + a.Type}
	}
	var parts []string
	for _, r := range e.Rendered {
		parts = append(parts, r.Content)
	}
	if len(parts) == 0 {
		parts = attachmentText(a.Content, a.Text)
		for _, f := range a.Files {
			parts = append(parts, f.Content)
		}
		parts = append(parts, a.AddedBlocks...)
	}
	text := strings.Join(parts, "\n")
	if strings.TrimSpace(text) == "" {
		base.Kind, base.Raw = KindMetadata, clone(l.Data)
		p.emit(base)
		return nil
	}
	base.Kind, base.Role, base.Text = KindContext, "system", text
	base.Injected = &Injected{Source: "attachment/" + a.Type, Lineage: a.Type == "hook_additional_context" && isLineageText(text)}
	if slices.Contains(claudeWhole, a.Type) {
		base.Injected.Name = "claude." + a.Type
	}
	p.emit(base)
	return nil
}

// claudeWhole are the attachment types Claude repeats whole: the newest
// stands for all.
var claudeWhole = []string{"auto_mode", "date", "environment", "instructions", "model", "prompt_snapshot",
	"remote_session_change", "session_context", "skill_listing"}

// attachmentText is the text of an attachment without a rendered form.
func attachmentText(content jsontext.Value, text string) []string {
	var out []string
	if text != "" {
		out = append(out, text)
	}
	switch content.Kind() {
	case '"':
		var s string
		if json.Unmarshal(content, &s) == nil {
			out = append(out, s)
		}
	case '[':
		var ss []string
		if json.Unmarshal(content, &ss) == nil {
			out = append(out, ss...)
		}
	case '{':
		// A nested CLAUDE.md (nested_memory): {"path","type","content"}.
		var f struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(content, &f) == nil && f.Content != "" {
			out = append(out, f.Content)
		}
	}
	return out
}

// lineageMarkers are strings only lineage's hooks write.
var lineageMarkers = []string{"<agents_context", "agents.resolve.paths", "AGENTS.md in this session:", "session.resume.diff", "<lineage_memory>"}

// isLineageText reports whether text is lineage's own hook answer.
func isLineageText(text string) bool {
	for _, m := range lineageMarkers {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

// origin sets the session's link: a subagent's spawning tool call (from
// the .meta.json beside its file), or the session a copy was forked from.
func (p *claudeParser) origin(path string) error {
	s := &p.b.Session
	base := filepath.Base(path)
	if strings.HasPrefix(base, "agent-") && filepath.Base(filepath.Dir(path)) == "subagents" {
		parent := filepath.Base(filepath.Dir(filepath.Dir(path)))
		link := &Link{Kind: LinkSubagent, Harness: Claude, Session: parent}
		metaPath := strings.TrimSuffix(path, ".jsonl") + ".meta.json"
		if data, err := readSmall(metaPath); err == nil {
			var m struct {
				ToolUseID   string `json:"toolUseId"`
				Description string `json:"description"`
				AgentType   string `json:"agentType"`
			}
			if err := json.Unmarshal(data, &m); err != nil {
				return &LineError{Path: metaPath, Line: 1, Reason: "not a JSON object: " + err.Error()}
			}
			link.Key, link.Purpose = m.ToolUseID, strings.TrimSpace(m.AgentType+": "+m.Description)
		}
		s.Origin = link
		return nil
	}
	if p.forkedFrom != "" && p.forkedFrom != s.ID {
		s.Origin = &Link{Kind: LinkFork, Harness: Claude, Session: p.forkedFrom}
	}
	return nil
}

// readSmall reads a small file beside a transcript through a root.
func readSmall(path string) ([]byte, error) {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.ReadFile(filepath.Base(path))
}
