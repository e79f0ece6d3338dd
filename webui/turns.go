package webui

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlineage/lineage/handoff"
	"github.com/agentlineage/lineage/memory"
	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
)

// turnRow is one turn of a session: the user's message that starts it.
type turnRow struct {
	N      int
	Commit tract.Hash
	Prompt string
}

// turnsPage is a window of a session's turns, newest first, and, with
// ?turn=N, what the model saw at that turn.
type turnsPage struct {
	Session sessions.Info
	Rows    []turnRow
	Total   int
	Skip    int
	Next    string // the next (older) window; "" when none
	Prev    string // the previous (newer) window; "" when none
	// Turn is the turn shown (nil: none asked for).
	Turn *turnView
}

// turnView is what the model saw at a turn: the session compiled at the
// turn's first commit (the context of the turn's first request) with the
// injected context delivered by then, and what the tract's prune policy
// left out.
type turnView struct {
	turnRow
	Tokens       int
	Messages     int
	Instructions []tract.Message
	// Memory are the memories lineage's hook delivered by then (its own
	// text is kept but never compiled, so the history is read for it).
	Memory       []deliveredMemory
	Pruned       []tract.Pruned
	PrunedTokens int
	Tail         []tract.Message // the newest messages, at most maxTail
}

// maxTail bounds the messages a turn view lists (the compile page, at the
// turn's commit, pages through them all).
const maxTail = 20

// sessionInfo is the session the path names (404 when the tract is not a
// session's).
func (s *Server) sessionInfo(ctx context.Context, r *http.Request) (sessions.Info, error) {
	name := r.PathValue("name")
	info, ok, err := sessions.Get(ctx, s.o.Repo, name)
	if err != nil {
		return info, err
	}
	if !ok {
		return info, notASession(name)
	}
	return info, nil
}

type notASession string

func (n notASession) Error() string {
	return "tract " + string(n) + " is not a harness session: not found"
}
func (n notASession) Unwrap() error { return tract.ErrNotFound }

// sessionTurns lists a session's turns, newest first, a window at a time, and
// with ?turn=N shows that turn's context.
func (s *Server) sessionTurns(ctx context.Context, r *http.Request) (string, pageData, error) {
	info, err := s.sessionInfo(ctx, r)
	if err != nil {
		return "", pageData{}, err
	}
	skip, err := intParam(r, "skip", 0, 0)
	if err != nil {
		return "", pageData{}, err
	}
	n, err := intParam(r, "n", s.o.Window, MaxWindow)
	if err != nil {
		return "", pageData{}, err
	}
	if n == 0 {
		n = s.o.Window
	}
	turn, err := intParam(r, "turn", 0, 0)
	if err != nil {
		return "", pageData{}, err
	}
	// The user's messages of the compile, read from the stored checkpoint
	// a message at a time (no view built or cached, as the compile page).
	var all []turnRow
	_, err = s.o.Repo.CompileWindow(ctx, info.Tract, tract.CompileOptions{}, tract.WindowOptions{Hashes: true, Whole: s.wholeTurn, Head: func(m *tract.Message) bool {
		if m.Type == tract.TypeMessage && m.Role == tract.RoleUser {
			all = append(all, turnRow{N: len(all) + 1, Commit: tract.Hash(strings.Clone(string(m.Commit))), Prompt: strings.Clone(m.Content)})
		}
		return true
	}})
	if err != nil {
		return "", pageData{}, err
	}
	p := turnsPage{Session: info, Total: len(all), Skip: skip}
	// Newest first: the window counts from the last turn.
	for i := len(all) - 1 - skip; i >= 0 && i > len(all)-1-skip-n; i-- {
		p.Rows = append(p.Rows, all[i])
	}
	base := tractURL(info.Tract, "turns")
	if skip+n < len(all) {
		p.Next = base + "?skip=" + strconv.Itoa(skip+n)
	}
	if skip > 0 {
		p.Prev = base + "?skip=" + strconv.Itoa(max(0, skip-n))
	}
	if turn > 0 {
		if turn > len(all) {
			return "", pageData{}, badRequest{"turn=" + strconv.Itoa(turn) + ": the session has " + strconv.Itoa(len(all)) + " turn(s)"}
		}
		if p.Turn, err = s.turnView(ctx, info, all[turn-1]); err != nil {
			return "", pageData{}, err
		}
	}
	return "turns", pageData{Title: info.Tract + " turns", Tract: info.Tract, Page: p}, nil
}

// turnView compiles the session at the turn's commit, with the tract's
// stored prune policy.
func (s *Server) turnView(ctx context.Context, info sessions.Info, row turnRow) (*turnView, error) {
	cfg, err := s.o.Repo.Config(ctx, info.Tract)
	if err != nil {
		return nil, err
	}
	o := tract.CompileOptions{At: string(row.Commit)}
	if p := cfg.PrunePolicy(); p.Active() {
		o.Prune = &p
	}
	res, err := s.o.Repo.CompileCold(ctx, info.Tract, o)
	if err != nil {
		return nil, err
	}
	v := &turnView{turnRow: row, Tokens: res.Tokens, Messages: len(res.Messages), Pruned: res.Pruned}
	for _, m := range res.Messages {
		if m.Type == tract.TypeInstruction && len(v.Instructions) < maxListed {
			v.Instructions = append(v.Instructions, m)
		}
	}
	if v.Memory, err = s.deliveredMemory(ctx, info.Tract, row.Commit); err != nil {
		return nil, err
	}
	for _, p := range res.Pruned {
		v.PrunedTokens += p.Tokens
	}
	v.Tail = res.Messages[max(0, len(res.Messages)-maxTail):]
	if len(v.Pruned) > maxListed {
		v.Pruned = v.Pruned[:maxListed]
	}
	return v, nil
}

// handoffPage is the handoff preview of a session.
type handoffPage struct {
	Session sessions.Info
	At      string
	Budget  int
	Preview handoff.Preview
	Pruned  int
}

// handoffPreview shows what `lineage handoff SESSION@AT --budget N` would
// compose (without a caller's summary), writing nothing.
func (s *Server) handoffPreview(ctx context.Context, r *http.Request) (string, pageData, error) {
	info, err := s.sessionInfo(ctx, r)
	if err != nil {
		return "", pageData{}, err
	}
	budget, err := intParam(r, "budget", 0, 0)
	if err != nil {
		return "", pageData{}, err
	}
	at := r.URL.Query().Get("at")
	cfg, err := s.o.Repo.Config(ctx, info.Tract)
	if err != nil {
		return "", pageData{}, err
	}
	o := handoff.Options{Repo: s.o.Repo, Session: info, At: at, Budget: budget}
	if p := cfg.PrunePolicy(); p.Active() {
		o.Prune = &p
	}
	pv, err := handoff.PreviewOf(ctx, o)
	if err != nil {
		return "", pageData{}, err
	}
	p := handoffPage{Session: info, At: at, Budget: budget, Preview: pv}
	for _, x := range pv.Result.Pruned {
		p.Pruned += x.Tokens
	}
	if len(pv.Result.Pruned) > maxListed {
		p.Preview.Result.Pruned = pv.Result.Pruned[:maxListed]
	}
	if len(pv.Result.Dropped) > maxListed {
		p.Preview.Result.Dropped = pv.Result.Dropped[:maxListed]
	}
	return "handoff", pageData{Title: info.Tract + " handoff preview", Tract: info.Tract, Page: p}, nil
}

// turnURL is the stable URL of what the model saw at turn n.
func turnURL(name string, n int) string {
	return tractURL(name, "turns") + "?" + url.Values{"turn": {strconv.Itoa(n)}}.Encode()
}

// deliveredMemory is one memory a session start got: the line as the
// model read it, and the commit that holds the hook's answer.
type deliveredMemory struct {
	Commit tract.Hash
	Line   string
}

// deliveredMemory reads the memory blocks of lineage's own injected
// context in the history up to commit, oldest first, at most maxListed.
func (s *Server) deliveredMemory(ctx context.Context, name string, commit tract.Hash) ([]deliveredMemory, error) {
	entries, err := s.o.Repo.Log(ctx, name, tract.LogOptions{From: string(commit)})
	if err != nil {
		return nil, err
	}
	var out []deliveredMemory
	for i := len(entries) - 1; i >= 0 && len(out) < maxListed; i-- {
		e := entries[i]
		if e.Type != tract.TypeInstruction || !lineageInjected(e.Meta) {
			continue
		}
		shown, err := s.o.Repo.Show(ctx, name, string(e.Hash))
		if err != nil {
			return nil, err
		}
		if shown.Content == nil {
			continue
		}
		for _, line := range memory.Delivered(shown.Content.Text) {
			if len(out) < maxListed {
				out = append(out, deliveredMemory{Commit: e.Hash, Line: line})
			}
		}
	}
	return out, nil
}

// lineageInjected reports whether a session commit's metadata marks its
// text as lineage's own hook answer.
func lineageInjected(meta jsontext.Value) bool {
	var m struct {
		Injected *sessions.Injected `json:"injected"`
	}
	return len(meta) > 0 && json.Unmarshal(meta, &m, json.RejectUnknownMembers(false)) == nil && m.Injected != nil && m.Injected.Lineage
}
