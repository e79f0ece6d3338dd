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

// finish writes what is pending: main's appends, the aside records on the
// meta branch, and the session's tract metadata.
func (m *sessionMapper) finish() error {
	if m.fork != nil {
		// Every record was a copy of the origin's: the fork still gets its
		// tract, at the last record it shares.
		if err := m.create(m.fork.lastShared); err != nil {
			return err
		}
	}
	if err := m.flush(); err != nil {
		return err
	}
	if len(m.aside) > 0 {
		reqs := make([]tract.CommitRequest, len(m.aside))
		for i, p := range m.aside {
			reqs[i] = p.req
		}
		cs, err := m.im.Repo.AppendTo(m.ctx, m.tract, MetaBranch, reqs)
		if err != nil {
			return err
		}
		for i, c := range cs {
			m.aside[i].node.commit = c.Hash
		}
	}
	return m.writeMeta()
}

// writeMeta works out the session's tract metadata to update: the
// header's newest non-empty values, the running token and record counts.
// They are kept in m.meta and written with the file's cursor (saveCursor),
// in one transaction.
func (m *sessionMapper) writeMeta() error {
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
			return err
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
	m.meta = kv
	return nil
}

// oneLine is s on one line, at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = truncateUTF8(s, n) + "…"
	}
	return s
}
