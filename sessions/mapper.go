package sessions

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentlineage/lineage/tract"
)

// MetaBranch is the branch of a session's tract holding its aside records.
const MetaBranch = "meta"

// node is a record's place in tract: a stored commit, or an append waiting
// to be written (commit "" until the flush).
type node struct {
	commit tract.Hash
	// parentHash is a stored commit's first parent; parent the node a
	// record of this import follows.
	parentHash tract.Hash
	parent     *node
	key        string
	// own is set for a stored commit of the session itself (not of its
	// origin).
	own bool
}

// same reports whether a and b are one place: the same stored commit, or
// the same append waiting for the flush (nil is no place).
func same(a, b *node) bool {
	switch {
	case a == nil || b == nil:
		return a == b
	case a.commit != "" || b.commit != "":
		return a.commit == b.commit
	}
	return a == b
}

// follows reports whether n's parent is p.
func (n *node) follows(p *node) bool {
	if n.parent != nil {
		return same(n.parent, p)
	}
	if p == nil {
		return n.parentHash == ""
	}
	return p.commit != "" && p.commit == n.parentHash
}

// pendingAppend is a record's commit waiting for the flush.
type pendingAppend struct {
	req  tract.CommitRequest
	node *node
}

// sessionMapper maps one file's batch into its session's tract.
type sessionMapper struct {
	im    *Importer
	ctx   context.Context
	b     Batch
	st    cursorState
	tract string
	rep   *SessionReport
	// idx maps record keys (and "call:"+tool call id) to their nodes.
	idx  map[string]*node
	full bool
	// sessions whose keys idx takes from stored commits: this one and a
	// fork's origin.
	sessions map[string]bool
	// base is what a root record follows (a subagent's seed); tip is
	// main's head.
	base, tip *node
	pending   []pendingAppend
	aside     []pendingAppend
	branches  map[string]tract.Hash
	exists    bool
	// fork is set while a fork's records are still its origin's copies.
	fork *forkState
	// tokens adds up the usage of new records.
	tokens int64
	first  string
	// mapped holds the nodes of the files this import mapped before, by
	// tract: a subagent finds the tool call that started it there
	// instead of reading its parent's history again.
	mapped map[string]map[string]*node
	// metaHook, in tests, sees each record's meta before it is marshalled.
	metaHook func(commitMeta)
}

type forkState struct {
	origin     string
	lastShared *node
}

// mapSource maps one read file.
func (im *Importer) mapSource(ctx context.Context, p *pendingSource, mapped map[string]map[string]*node) (SessionReport, error) {
	s := p.batch.Session
	m := &sessionMapper{im: im, ctx: ctx, b: p.batch, st: p.st(), tract: TractName(s.Harness, s.ID),
		idx: map[string]*node{}, sessions: map[string]bool{s.ID: true}, mapped: mapped}
	if o := s.Origin; o != nil && (o.Kind == LinkResume || o.Kind == LinkRewind) {
		// Another file of the same conversation: its records go on the
		// origin's tract, the first after the record the link names.
		m.tract = TractName(o.Harness, o.Session)
		m.sessions[o.Session] = true
	}
	m.rep = &SessionReport{Harness: s.Harness, Session: s.ID, Tract: m.tract, Path: p.src.Path, Records: len(p.batch.Records)}
	for _, n := range p.batch.Skipped {
		m.rep.Skipped += n
	}
	if err := m.open(); err != nil {
		return *m.rep, err
	}
	for i := range m.b.Records {
		if err := m.record(&m.b.Records[i]); err != nil {
			return *m.rep, err
		}
	}
	if err := m.finish(p.batch.Next); err != nil {
		return *m.rep, err
	}
	if mapped != nil && mapped[m.tract] == nil {
		mapped[m.tract] = m.idx
	}
	return *m.rep, nil
}

func (p *pendingSource) st() cursorState { return p.state }

// open finds the session's tract, or prepares its creation: a plain tract,
// a subagent spawned at its tool call, or a fork that shares its origin's
// records until the first one of its own.
func (m *sessionMapper) open() error {
	t, err := m.im.Repo.Tract(m.ctx, m.tract)
	switch {
	case err == nil:
		m.exists = true
		return m.resume(t)
	case !errors.Is(err, tract.ErrNotFound):
		return err
	}
	o := m.b.Session.Origin
	if o == nil {
		return m.create(nil)
	}
	originTract := TractName(o.Harness, o.Session)
	if _, err := m.im.Repo.Tract(m.ctx, originTract); err != nil {
		if !errors.Is(err, tract.ErrNotFound) {
			return err
		}
		m.warn("origin session %s is not imported: the session is imported on its own", o.Session)
		return m.create(nil)
	}
	switch o.Kind {
	case LinkSubagent:
		return m.spawnSubagent(originTract, o)
	case LinkFork:
		m.sessions[o.Session] = true
		if err := m.loadIndex(originTract); err != nil {
			return err
		}
		m.fork = &forkState{origin: originTract}
		if o.Key != "" {
			// A fork that copies nothing (Codex) names where it starts.
			m.fork.lastShared = m.idx[o.Key]
		}
		return nil
	}
	return m.create(nil)
}

// resume picks up an existing tract: main's head is where the next record
// goes. When the head is not the commit the cursor names, records may
// already be stored past the cursor: the index is read.
func (m *sessionMapper) resume(t tract.Tract) error {
	if err := m.readBranches(); err != nil {
		return err
	}
	head := m.branches[tract.DefaultBranch]
	m.tip = &node{commit: head}
	m.base = &node{}
	if t.Spawn != nil && t.Spawn.Mode == tract.SpawnEmpty {
		// The seed is the first commit of main's line: find it only if a
		// root record needs it (rare after the first import).
		m.base = nil
	}
	if m.st.LastCommit != "" && m.st.LastCommit == head {
		m.tip.key = m.st.LastKey
		m.idx[m.st.LastKey] = m.tip
		return nil
	}
	if err := m.loadIndex(m.tract); err != nil {
		return err
	}
	if head != "" {
		c, err := m.im.Repo.Store().Commit(m.ctx, head)
		if err != nil {
			return err
		}
		if n := m.idx[firstKey(metaOf(c.Meta).Keys)]; n != nil && n.commit == head {
			m.tip = n
		}
	}
	return nil
}

func (m *sessionMapper) readBranches() error {
	bs, err := m.im.Repo.Branches(m.ctx, m.tract)
	if err != nil {
		return err
	}
	m.branches = map[string]tract.Hash{}
	for _, b := range bs {
		m.branches[b.Name] = b.Commit
	}
	return nil
}

// create makes the session's tract: new, or spawned by reference at at.
func (m *sessionMapper) create(at *node) error {
	if at != nil && at.commit != "" {
		o := m.b.Session.Origin
		purpose := "fork of " + o.Session
		if _, err := m.im.Repo.Spawn(m.ctx, m.fork.origin, m.tract, tract.SpawnOptions{Purpose: purpose, At: string(at.commit)}); err != nil {
			return err
		}
		m.rep.Spawn = o
		m.tip, m.base = at, &node{}
	} else {
		if _, err := m.im.Repo.NewTract(m.ctx, m.tract); err != nil {
			return err
		}
		root := &node{}
		m.tip, m.base = root, root
	}
	m.exists, m.fork = true, nil
	m.branches = map[string]tract.Hash{}
	return nil
}

// spawnSubagent creates a subagent's tract, spawned empty at the parent's
// tool call that started it; without that call, at the parent's head.
func (m *sessionMapper) spawnSubagent(parent string, o *Link) error {
	call := m.mapped[parent]["call:"+o.Key]
	if call == nil || call.commit == "" {
		if err := m.loadIndex(parent); err != nil {
			return err
		}
		call = m.idx["call:"+o.Key]
	}
	at := ""
	if n := call; n != nil && n.commit != "" {
		at = string(n.commit)
	} else {
		m.warn("the tool call %s that started the subagent is not in %s: spawned at its head", o.Key, parent)
	}
	clear(m.idx)
	m.full = false
	purpose := o.Purpose
	if purpose == "" {
		purpose = "subagent " + m.b.Session.ID
	}
	t, err := m.im.Repo.Spawn(m.ctx, parent, m.tract, tract.SpawnOptions{Purpose: purpose, Mode: tract.SpawnEmpty, At: at})
	if err != nil {
		return err
	}
	_, h, err := m.im.Repo.Head(m.ctx, t.Name)
	if err != nil {
		return err
	}
	m.rep.Spawn = o
	m.exists = true
	m.base = &node{commit: h.Commit}
	m.tip = m.base
	m.branches = map[string]tract.Hash{tract.DefaultBranch: h.Commit}
	return nil
}

func (m *sessionMapper) warn(format string, args ...any) {
	m.rep.Warnings = append(m.rep.Warnings, fmt.Sprintf(format, args...))
}

// record maps one record.
func (m *sessionMapper) record(r *Record) error {
	if !m.im.KeepSecrets {
		m.rep.Masked += r.mask()
	}
	if r.Kind == KindUnmapped {
		m.rep.Unmapped++
	}
	if r.Aside {
		return m.asideRecord(r)
	}
	parent, err := m.parentOf(r)
	if err != nil {
		return err
	}
	if n := m.idx[r.Key()]; n != nil && (r.Parent == "" || n.follows(parent)) {
		m.rep.Existing++
		m.alias(r, n)
		if m.fork != nil {
			m.fork.lastShared = n
		}
		return nil
	}
	if m.fork != nil {
		if err := m.create(m.fork.lastShared); err != nil {
			return err
		}
		if parent.commit == "" && r.Parent == "" {
			parent = m.tip
		}
	}
	if r.Kind == KindCompaction && r.Compaction != nil && strings.TrimSpace(r.Compaction.Summary) != "" {
		return m.compaction(r, parent)
	}
	return m.appendRecord(r, parent)
}

// parentOf finds the node a record follows: the record its Parent names,
// or the tract's base for a root. A parent not among the nodes known yet
// makes the mapper read the index; one missing even there is a warning and
// the record follows main's head.
func (m *sessionMapper) parentOf(r *Record) (*node, error) {
	if r.Parent == "" {
		if m.tip == nil {
			// A fork not created yet: its root follows what it shares.
			return &node{}, nil
		}
		if m.base == nil || (m.base.commit == "" && m.tip != m.base) {
			// A new root in a tract that has a history follows it.
			return m.tip, nil
		}
		return m.base, nil
	}
	if n := m.idx[r.Parent]; n != nil {
		return n, nil
	}
	if !m.full && m.exists {
		if err := m.loadIndex(m.tract); err != nil {
			return nil, err
		}
		if n := m.idx[r.Parent]; n != nil {
			return n, nil
		}
	}
	m.warn("record %s follows %s, which the session does not hold: it follows the newest record instead", r.Key(), r.Parent)
	if m.tip == nil {
		return &node{}, nil
	}
	return m.tip, nil
}

// alias points every key of r (and its tool calls) at n.
func (m *sessionMapper) alias(r *Record, n *node) {
	for _, k := range r.Keys {
		m.idx[k] = n
	}
	for _, c := range r.Calls {
		m.idx["call:"+c.ID] = n
	}
}

// appendRecord appends r after parent: on main when parent is main's
// head, else main moves to parent first (the harness's newest line is
// main) and the line it leaves keeps a branch.
func (m *sessionMapper) appendRecord(r *Record, parent *node) error {
	req, err := m.request(r)
	if err != nil {
		return err
	}
	if !same(parent, m.tip) {
		if err := m.moveMain(parent); err != nil {
			return err
		}
	}
	n := &node{parent: parent, key: r.Key(), own: true}
	m.pending = append(m.pending, pendingAppend{req: req, node: n})
	m.alias(r, n)
	m.tip = n
	m.count(r)
	return nil
}

func (m *sessionMapper) count(r *Record) {
	m.rep.Added++
	if t := r.Turn; t != nil {
		m.tokens += t.Input + t.Output
	}
	if m.first == "" && r.Kind == KindMessage && r.Role == "user" {
		m.first = r.Text
	}
}

// asideRecord keeps an aside record on the meta branch once.
func (m *sessionMapper) asideRecord(r *Record) error {
	m.rep.Aside++
	if n := m.idx[r.Key()]; n != nil && n.own {
		m.rep.Existing++
		return nil
	}
	req, err := m.request(r)
	if err != nil {
		return err
	}
	n := &node{key: r.Key(), own: true}
	m.aside = append(m.aside, pendingAppend{req: req, node: n})
	m.idx[r.Key()] = n
	m.rep.Added++
	return nil
}

// flush writes main's pending appends.
func (m *sessionMapper) flush() error {
	if len(m.pending) == 0 {
		return nil
	}
	reqs := make([]tract.CommitRequest, len(m.pending))
	for i, p := range m.pending {
		reqs[i] = p.req
	}
	cs, err := m.im.Repo.Import(m.ctx, m.tract, reqs)
	if err != nil {
		return err
	}
	for i, c := range cs {
		m.pending[i].node.commit = c.Hash
	}
	m.branches[tract.DefaultBranch] = cs[len(cs)-1].Hash
	m.pending = m.pending[:0]
	return nil
}

// moveMain makes parent main's head: the line main leaves keeps a branch
// (rewind-<key>), unless a branch already holds it, and a branch whose
// head parent was gives way to main.
func (m *sessionMapper) moveMain(parent *node) error {
	if err := m.flush(); err != nil {
		return err
	}
	if parent.commit == "" {
		return fmt.Errorf("record after an unwritten root: cannot branch there")
	}
	old := m.tip
	if old != nil && old.commit != "" && !m.branchHolds(old.commit) {
		name := m.branchName(firstNonEmpty(old.key, string(old.commit)))
		if _, err := m.im.Repo.CreateBranch(m.ctx, m.tract, name, string(old.commit)); err != nil {
			return err
		}
		m.branches[name] = old.commit
		m.rep.Branches++
	}
	for name, h := range m.branches {
		if h == parent.commit && name != tract.DefaultBranch && name != MetaBranch {
			if err := m.im.Repo.DeleteBranch(m.ctx, m.tract, name, true); err != nil {
				return err
			}
			delete(m.branches, name)
		}
	}
	if _, err := m.im.Repo.Reset(m.ctx, m.tract, string(parent.commit)); err != nil {
		return err
	}
	m.branches[tract.DefaultBranch] = parent.commit
	m.tip = parent
	return nil
}

func (m *sessionMapper) branchHolds(h tract.Hash) bool {
	for name, b := range m.branches {
		if b == h && name != tract.DefaultBranch {
			return true
		}
	}
	return false
}

// branchName names the branch of a line main left by its newest record.
func (m *sessionMapper) branchName(key string) string {
	short := TractName("rewind", key)
	short = short[:min(len(short), len("rewind-")+8)]
	name := short
	for i := 2; ; i++ {
		if _, taken := m.branches[name]; !taken && tract.ValidateBranchName(name) == nil {
			return name
		}
		name = short + "-" + strconv.Itoa(i)
	}
}
