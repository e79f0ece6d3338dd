package sessions

import (
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/tract"
)

// The tract metadata keys an import writes (see docs/sessions.md).
const (
	MetaHarness     = "harness"
	MetaSession     = "session"
	MetaTitle       = "title"
	MetaCwd         = "cwd"
	MetaGitBranch   = "gitBranch"
	MetaModel       = "model"
	MetaVersion     = "version"
	MetaStarted     = "started"
	MetaOrigin      = "origin"
	MetaFirstPrompt = "firstPrompt"
	MetaTokens      = "tokens"
	MetaRecords     = "records"
)

// finish writes what is pending in one transaction: main's appends, the
// aside records on the meta branch, the session's tract metadata and the
// file's cursor, next (a recorded turn's import is that one write).
func (m *sessionMapper) finish(next Cursor) error {
	if m.fork != nil {
		// Every record was a copy of the origin's: the fork still gets its
		// tract, at the last record it shares.
		if err := m.create(m.fork.lastShared); err != nil {
			return err
		}
	}
	meta, err := m.writeMeta()
	if err != nil {
		return err
	}
	if _, err := json.Marshal(m.st); err != nil {
		// The cursor names the file: one that does not marshal fails
		// before anything is written.
		return err
	}
	if err := m.im.indexTract(m.ctx); err != nil {
		return err
	}
	b := tract.Batch{Head: requests(m.pending), Branch: MetaBranch, Aside: requests(m.aside), MetaTracts: []string{IndexTract, m.tract}}
	b.Meta = func(head, aside []tract.Commit) map[string]map[string]string {
		for i, c := range head {
			m.pending[i].node.commit = c.Hash
		}
		for i, c := range aside {
			m.aside[i].node.commit = c.Hash
		}
		st := m.st
		st.Tract, st.Cursor = m.tract, next
		if m.tip != nil {
			st.LastKey, st.LastCommit = m.tip.key, m.tip.commit
		}
		sets := map[string]map[string]string{IndexTract: {cursorKey(st.Path): cursorJSON(st)}}
		if len(meta) > 0 {
			sets[m.tract] = meta
		}
		return sets
	}
	head, _, err := m.im.Repo.WriteBatch(m.ctx, m.tract, b)
	if err != nil {
		return err
	}
	if len(head) > 0 {
		m.branches[tract.DefaultBranch] = head[len(head)-1].Hash
	}
	m.pending, m.aside = m.pending[:0], m.aside[:0]
	return nil
}

func requests(ps []pendingAppend) []tract.CommitRequest {
	reqs := make([]tract.CommitRequest, len(ps))
	for i, p := range ps {
		reqs[i] = p.req
	}
	return reqs
}

// writeMeta works out the session's tract metadata to update: the
// header's newest non-empty values, the running token and record counts.
// finish writes them with the file's cursor.
func (m *sessionMapper) writeMeta() (map[string]string, error) {
	old := map[string]string{}
	if meta, err := m.im.Repo.TractMeta(m.ctx, m.tract); err == nil {
		for _, e := range meta {
			old[e.Key] = e.Value
		}
	}
	s := m.b.Session
	kv := map[string]string{}
	set := func(k, v string) {
		if v != "" && old[k] != v {
			kv[k] = v
		}
	}
	set(MetaHarness, string(s.Harness))
	set(MetaSession, s.ID)
	set(MetaTitle, s.Title)
	set(MetaCwd, s.Cwd)
	set(MetaGitBranch, s.GitBranch)
	set(MetaModel, s.Model)
	set(MetaVersion, s.Version)
	if !s.Started.IsZero() && old[MetaStarted] == "" {
		set(MetaStarted, s.Started.UTC().Format(time.RFC3339Nano))
	}
	if s.Origin != nil {
		data, err := json.Marshal(s.Origin)
		if err != nil {
			return nil, err
		}
		set(MetaOrigin, string(data))
	}
	if old[MetaFirstPrompt] == "" && m.first != "" {
		set(MetaFirstPrompt, oneLine(m.first, 200))
	}
	if m.tokens > 0 {
		n, _ := strconv.ParseInt(old[MetaTokens], 10, 64)
		set(MetaTokens, strconv.FormatInt(n+m.tokens, 10))
	}
	if m.rep.Added > 0 {
		n, _ := strconv.Atoi(old[MetaRecords])
		set(MetaRecords, strconv.Itoa(n+m.rep.Added))
	}
	return kv, nil
}

// oneLine is s on one line, at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = truncateUTF8(s, n) + "…"
	}
	return s
}
