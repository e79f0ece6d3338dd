package sessions

import (
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlineage/lineage/tract"
)

// commitMeta is what each commit's meta says about its source record. Its
// members (and those of the types it holds) are in the order RFC 8785 sorts
// them, so what json.Marshal writes is already canonical and tract keeps it
// without parsing it again (Extra aside, which is the harness's own JSON).
type commitMeta struct {
	Calls      []string        `json:"calls,omitempty"`
	Compaction *compactionMeta `json:"compaction,omitempty"`
	// Extra is the record's Raw for kinds whose text is elsewhere
	// (a thinking block's signature).
	Extra    jsontext.Value `json:"extra,omitzero"`
	Harness  Harness        `json:"harness"`
	Image    *imageMeta     `json:"image,omitempty"`
	Injected *injectedMeta  `json:"injected,omitempty"`
	IsError  bool           `json:"isError,omitempty"`
	Keys     []string       `json:"keys"`
	Kind     Kind           `json:"kind"`
	Parent   string         `json:"parent,omitempty"`
	Session  string         `json:"session"`
	Time     string         `json:"time,omitempty"`
	// Truncated says the stored text is the first MaxContentBytes of a
	// longer one.
	Truncated int       `json:"truncated,omitempty"`
	Turn      *turnMeta `json:"turn,omitempty"`
	Type      string    `json:"type,omitempty"`
}

type compactionMeta struct {
	// Compressed is false when tract could not compress the range (the
	// summary is then a plain message).
	Compressed bool     `json:"compressed"`
	Kept       []string `json:"kept,omitempty"`
	To         string   `json:"to,omitempty"`
	Trigger    string   `json:"trigger,omitempty"`
}

// imageMeta, injectedMeta and turnMeta are Image, Injected and Turn with
// their members in canonical order (the same names and values).
type imageMeta struct {
	MediaType string `json:"mediaType"`
	Ref       string `json:"ref,omitempty"`
	SHA256    string `json:"sha256"`
	Size      int64  `json:"size"`
}

type injectedMeta struct {
	Lineage bool   `json:"lineage,omitempty"`
	Name    string `json:"name,omitempty"`
	Source  string `json:"source"`
}

type turnMeta struct {
	CacheRead  int64  `json:"cacheRead,omitempty"`
	CacheWrite int64  `json:"cacheWrite,omitempty"`
	Input      int64  `json:"input,omitempty"`
	Model      string `json:"model,omitempty"`
	Output     int64  `json:"output,omitempty"`
	ResponseID string `json:"responseId,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
}

func imageMetaOf(i *Image) *imageMeta {
	if i == nil {
		return nil
	}
	return &imageMeta{MediaType: i.MediaType, Ref: i.Ref, SHA256: i.SHA256, Size: i.Size}
}

func injectedMetaOf(i *Injected) *injectedMeta {
	if i == nil {
		return nil
	}
	return &injectedMeta{Lineage: i.Lineage, Name: i.Name, Source: i.Source}
}

func turnMetaOf(t *Turn) *turnMeta {
	if t == nil {
		return nil
	}
	return &turnMeta{CacheRead: t.CacheRead, CacheWrite: t.CacheWrite, Input: t.Input, Model: t.Model, Output: t.Output,
		ResponseID: t.ResponseID, StopReason: t.StopReason}
}

// maxText leaves room in a content blob for its JSON around the text.
const maxText = tract.MaxContentBytes - 4096

// request builds the commit request of a record.
func (m *sessionMapper) request(r *Record) (tract.CommitRequest, error) {
	meta := commitMeta{Harness: m.b.Session.Harness, Session: m.b.Session.ID, Keys: r.Keys, Parent: r.Parent,
		Kind: r.Kind, Type: r.Type, IsError: r.IsError, Injected: injectedMetaOf(r.Injected), Image: imageMetaOf(r.Image), Turn: turnMetaOf(r.Turn)}
	if !r.Time.IsZero() {
		meta.Time = r.Time.Format(time.RFC3339Nano)
	}
	for _, c := range r.Calls {
		meta.Calls = append(meta.Calls, c.ID)
	}
	req := tract.CommitRequest{}
	c := tract.Content{Text: r.Text}
	switch r.Kind {
	case KindMessage:
		c.Type, c.Role = tract.TypeMessage, messageRole(r.Role)
	case KindToolCall:
		c.Type = tract.TypeToolCall
		for _, call := range r.Calls {
			c.ToolCalls = append(c.ToolCalls, tract.ToolCall{ID: call.ID, Name: call.Name, Arguments: objectArguments(call.Arguments)})
		}
	case KindToolResult:
		c.Type, c.ToolCallID = tract.TypeToolResult, r.CallID
	case KindReasoning:
		c.Type, meta.Extra = tract.TypeReasoning, r.Raw
	case KindContext:
		c.Type = tract.TypeInstruction
		if r.Injected != nil {
			c.Name = r.Injected.Name
		}
		if r.Injected != nil && r.Injected.Lineage {
			// lineage sends its own context fresh; compiling the copy the
			// harness kept would send it twice.
			req.Priority, req.Reason = tract.Skip, "lineage's own context, injected by the harness"
		}
	case KindCompaction:
		// A compaction without a summary text: kept as a message.
		c.Type, c.Role = tract.TypeMessage, tract.RoleUser
		if r.Compaction != nil {
			c.Text = r.Compaction.Summary
			meta.Compaction = &compactionMeta{Trigger: r.Compaction.Trigger, To: r.Compaction.To, Kept: r.Compaction.Kept}
		}
	case KindImage:
		c.Type, c.Text = tract.TypeMetadata, imageText(r.Image)
	case KindMetadata, KindUnmapped:
		c.Type, c.Text = tract.TypeMetadata, string(r.Raw)
	default:
		return req, fmt.Errorf("record %s: kind %q has no mapping", r.Key(), r.Kind)
	}
	if len(c.Text) > maxText {
		meta.Truncated = len(c.Text)
		c.Text = truncateUTF8(c.Text, maxText)
		m.warn("record %s: text of %d bytes kept to its first %d", r.Key(), meta.Truncated, maxText)
	}
	req.Content = c
	if m.metaHook != nil {
		m.metaHook(meta)
	}
	data, err := marshalMeta(&meta)
	if err != nil {
		return req, err
	}
	if len(data) > tract.MaxMetaBytes {
		meta.Extra = nil
		if data, err = marshalMeta(&meta); err != nil {
			return req, err
		}
	}
	req.Meta = data
	req.Message = string(r.Kind) + " " + r.Key()
	return req, nil
}

func messageRole(role string) string {
	switch role {
	case tract.RoleAssistant, tract.RoleSystem:
		return role
	case "developer":
		return tract.RoleSystem
	}
	return tract.RoleUser
}

// objectArguments makes tool arguments the JSON object tract wants.
func objectArguments(args string) string {
	if args == "" {
		return "{}"
	}
	if v := jsontext.Value(args); v.IsValid() && v.Kind() == '{' {
		return args
	}
	data, _ := json.Marshal(map[string]string{"input": args})
	return string(data)
}

func imageText(img *Image) string {
	if img == nil {
		return "[image]"
	}
	s := "[image " + img.MediaType
	if img.Size > 0 {
		s += " " + strconv.FormatInt(img.Size, 10) + " bytes"
	}
	if img.SHA256 != "" {
		s += " sha256:" + img.SHA256
	}
	if img.Ref != "" && img.Ref != "inline" {
		s += " at " + img.Ref
	}
	return s + "]"
}

func truncateUTF8(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// compaction compresses, by reference, the line up to what the harness
// summarised: the summary stands in for it, the originals stay, the
// records the harness kept verbatim are pinned. A metadata commit after
// the summary carries the record's keys.
func (m *sessionMapper) compaction(r *Record, parent *node) error {
	if !same(parent, m.tip) {
		if err := m.moveMain(parent); err != nil {
			return err
		}
	}
	if err := m.flush(); err != nil {
		return err
	}
	to, err := m.compactedTo(r, parent)
	if err != nil {
		return err
	}
	cm := &compactionMeta{Trigger: r.Compaction.Trigger, To: r.Compaction.To, Kept: r.Compaction.Kept}
	if to != "" {
		cm.Compressed, err = m.compress(r, to)
		if err != nil {
			return err
		}
	}
	if !cm.Compressed {
		m.warn("compaction %s: nothing to compress before it: its summary is kept as a message", r.Key())
		return m.appendRecord(r, m.tip)
	}
	m.rep.Summaries++
	_, h, err := m.im.Repo.Head(m.ctx, m.tract)
	if err != nil {
		return err
	}
	summary := &node{commit: h.Commit, parent: parent}
	m.tip = summary
	m.branches[tract.DefaultBranch] = h.Commit
	keep := *r
	keep.Kind, keep.Raw = KindMetadata, nil
	req, err := m.request(&keep)
	if err != nil {
		return err
	}
	meta := metaOf(req.Meta)
	meta.Kind, meta.Compaction = KindCompaction, cm
	data, err := marshalMeta(&meta)
	if err != nil {
		return err
	}
	req.Meta, req.Content.Text = data, "compaction "+r.Key()+": summary "+string(h.Commit.Short())
	n := &node{parent: summary, key: r.Key()}
	m.pending = append(m.pending, pendingAppend{req: req, node: n})
	m.alias(r, n)
	m.tip = n
	m.count(r)
	return nil
}

func metaOf(data []byte) commitMeta {
	var cm commitMeta
	_ = json.Unmarshal(data, &cm)
	return cm
}

// compactedTo finds the newest commit a compaction replaced: the record
// its To names, else the parent of the boundary metadata commit the
// summary follows.
func (m *sessionMapper) compactedTo(r *Record, parent *node) (tract.Hash, error) {
	if k := r.Compaction.To; k != "" {
		if n := m.idx[k]; n != nil && n.commit != "" {
			return n.commit, nil
		}
	}
	h := parent.commit
	for i := 0; h != "" && i < 64; i++ {
		c, err := m.im.Repo.Store().Commit(m.ctx, h)
		if err != nil {
			return "", err
		}
		if cm := metaOf(c.Meta); cm.Type == "system/compact_boundary" && len(c.Parents) > 0 {
			return c.Parents[0], nil
		}
		if len(c.Parents) == 0 {
			break
		}
		h = c.Parents[0]
	}
	return "", nil
}

// compress pins the kept records and compresses the first-parent line
// from its root to to; false when tract finds nothing to replace.
func (m *sessionMapper) compress(r *Record, to tract.Hash) (bool, error) {
	for _, k := range r.Compaction.Kept {
		if n := m.idx[k]; n != nil && n.commit != "" {
			if _, err := m.im.Repo.Annotate(m.ctx, m.tract, string(n.commit), tract.Pinned, "kept verbatim by the harness's compaction"); err != nil {
				return false, err
			}
		}
	}
	c, err := m.im.Repo.Store().Commit(m.ctx, to)
	if err != nil {
		return false, err
	}
	from := string(to)
	if c.Pos.Depth > 0 {
		from += "~" + strconv.FormatInt(c.Pos.Depth, 10)
	}
	t, err := m.im.Repo.Tract(m.ctx, m.tract)
	if err != nil {
		return false, err
	}
	root, err := m.im.Repo.Resolve(m.ctx, t, from)
	if err != nil {
		return false, err
	}
	msg := "compaction " + r.Key()
	if r.Compaction.Trigger != "" {
		msg += " (" + r.Compaction.Trigger + ")"
	}
	_, err = m.im.Repo.Compress(m.ctx, m.tract, tract.CompressOptions{Range: string(root) + ".." + string(to), Summary: r.Compaction.Summary, Message: msg, Uncounted: true})
	var ve *tract.ValidationError
	if errors.As(err, &ve) {
		return false, nil
	}
	return err == nil, err
}

// loadIndex reads the keys of every commit the tract's refs reach (a
// fork's origin's too) into the index.
func (m *sessionMapper) loadIndex(tractName string) error {
	t, err := m.im.Repo.Tract(m.ctx, tractName)
	if err != nil {
		return err
	}
	st := m.im.Repo.Store()
	refs, err := st.Refs(m.ctx, t.ID)
	if err != nil {
		return err
	}
	var heads []tract.Hash
	for _, ref := range refs {
		if ref.Name != tract.HeadRef && ref.Value != "" {
			heads = append(heads, tract.Hash(ref.Value))
		}
	}
	if len(heads) == 0 {
		return nil
	}
	commits, err := st.Ancestry(m.ctx, heads)
	if err != nil {
		return err
	}
	m.rep.IndexReads += len(commits)
	if tractName == m.tract {
		m.full = true
	}
	byHash := make(map[tract.Hash]tract.Commit, len(commits))
	for _, c := range commits {
		byHash[c.Hash] = c
	}
	for _, c := range commits {
		if len(c.Meta) == 0 {
			continue
		}
		cm := metaOf(c.Meta)
		if cm.Compaction != nil && cm.Compaction.Compressed && len(c.Parents) > 0 {
			// A compaction's keys are on the commit after its summary:
			// the record followed what the summary follows.
			c.Parents = byHash[c.Parents[0]].Parents
		}
		if !m.sessions[cm.Session] && tractName != m.tract && cm.Session != m.b.Session.Origin.sessionOr() {
			continue
		}
		n := &node{commit: c.Hash, key: firstKey(cm.Keys), own: cm.Session == m.b.Session.ID}
		if len(c.Parents) > 0 {
			n.parentHash = c.Parents[0]
		}
		for _, k := range cm.Keys {
			// A fork holds copies of its origin's records under the same
			// keys: the session's own copy wins.
			if old := m.idx[k]; old == nil || old.commit == "" || (n.own && !old.own) {
				m.idx[k] = n
			}
		}
		for _, id := range cm.Calls {
			m.idx["call:"+id] = n
		}
	}
	return nil
}

func (l *Link) sessionOr() string {
	if l == nil {
		return ""
	}
	return l.Session
}

func firstKey(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}
