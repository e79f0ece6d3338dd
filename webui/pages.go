package webui

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
	"github.com/agentlineage/lineage/triad"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// tractRow is one tract on the tracts page.
type tractRow struct {
	tract.TractInfo
	Branches []tract.Branch
	Tags     []tract.Tag
	Status   tract.Status
	// Pressure is the compiled tokens as a share of the budget, in percent
	// (0 without a budget).
	Pressure int
}

func (s *Server) tracts(ctx context.Context, r *http.Request) (string, pageData, error) {
	list, err := s.o.Repo.List(ctx)
	if err != nil {
		return "", pageData{}, err
	}
	rows := make([]tractRow, 0, len(list))
	for _, t := range list {
		row := tractRow{TractInfo: t}
		if row.Branches, err = s.o.Repo.Branches(ctx, t.Name); err != nil {
			return "", pageData{}, err
		}
		if row.Tags, err = s.o.Repo.Tags(ctx, t.Name); err != nil {
			return "", pageData{}, err
		}
		if row.Status, err = s.o.Repo.Status(ctx, t.Name); err != nil {
			return "", pageData{}, err
		}
		row.Pressure = pressure(row.Status.Tokens, row.Status.Budget)
		rows = append(rows, row)
	}
	return "tracts", pageData{Title: "Tracts", Page: rows}, nil
}

func pressure(tokens int, budget *int) int {
	if budget == nil || *budget <= 0 {
		return 0
	}
	return tokens * 100 / *budget
}

// graphRow is one commit of the graph window.
type graphRow struct {
	tract.LogEntry
	Node graphNode
	// Skipped says the tract's own newest annotation skips the commit.
	Skipped bool
	// EditedBy is set when an edit in the window replaces the commit.
	EditedBy tract.Hash
	// From is a summary's oldest replaced commit (its newest is
	// EditTarget).
	From tract.Hash
	// SummarizedBy is the summary in the window that stands in for the
	// commit (its range's rows, which are contiguous in the log).
	SummarizedBy tract.Hash
	// Spawned lists the tracts spawned at this commit.
	Spawned []tract.TractInfo
}

type graphPage struct {
	Tract   tract.TractInfo
	Rows    []graphRow
	Layout  graphLayout
	Skip    int
	From    string
	Next    template.URL // the next (older) page; "" when none
	Prev    int          // the skip of the previous page; -1 when none
	Window  int
	Parent  string // the spawn parent's name
	Spawned []tract.TractInfo
	// Session is the harness session the tract holds; nil for another
	// tract.
	Session *sessionHeader
}

func (s *Server) tractInfo(ctx context.Context, name string) (tract.TractInfo, []tract.TractInfo, error) {
	list, err := s.o.Repo.List(ctx)
	if err != nil {
		return tract.TractInfo{}, nil, err
	}
	for _, t := range list {
		if t.Name == name {
			return t, list, nil
		}
	}
	return tract.TractInfo{}, nil, errors.Join(tract.ErrNotFound, errors.New("no tract "+name))
}

func (s *Server) graph(ctx context.Context, r *http.Request) (string, pageData, error) {
	name := r.PathValue("name")
	skip, err := intParam(r, "skip", 0, 0)
	if err != nil {
		return "", pageData{}, err
	}
	window, err := intParam(r, "n", s.o.Window, MaxWindow)
	if err != nil {
		return "", pageData{}, err
	}
	if window == 0 {
		window = s.o.Window
	}
	info, list, err := s.tractInfo(ctx, name)
	if err != nil {
		return "", pageData{}, err
	}
	from := r.URL.Query().Get("from")
	// The log from the page's start (HEAD, or the cursor from) up to one
	// past the window: the rows before skip place the window on the
	// start's first-parent chain, the one past it tells whether an older
	// page exists.
	all, err := s.o.Repo.Log(ctx, name, tract.LogOptions{N: skip + window + 1, From: from})
	if err != nil {
		return "", pageData{}, err
	}
	entries := all[min(skip, len(all)):min(skip+window, len(all))]
	p := graphPage{Tract: info, Skip: skip, From: from, Prev: -1, Window: window, Parent: info.Parent}
	if p.Session, err = s.sessionOf(ctx, name); err != nil {
		return "", pageData{}, err
	}
	if len(all) > skip+window {
		// Safe as a URL: a path from PathEscape, a query from url.Values.
		p.Next = template.URL(tractURL(name, "graph") + "?" + nextPage(all, from, skip, window))
	}
	if from == "" && skip > 0 {
		p.Prev = max(0, skip-window)
	}
	p.Layout = layoutGraph(entries, name)
	rows := make([]graphRow, len(entries))
	at := map[tract.Hash]int{}
	for i, e := range entries {
		rows[i] = graphRow{LogEntry: e, Node: p.Layout.Nodes[i]}
		at[e.Hash] = i
	}
	rel, err := s.o.Repo.Relations(ctx, info.ID, entries)
	if err != nil {
		return "", pageData{}, err
	}
	relate(rows, at, rel)
	for _, t := range list {
		if t.Spawn == nil {
			continue
		}
		if t.Spawn.Parent == info.ID {
			p.Spawned = append(p.Spawned, t)
			if j, ok := at[t.Spawn.Commit]; ok {
				rows[j].Spawned = append(rows[j].Spawned, t)
			}
		}
	}
	p.Rows = rows
	return "graph", pageData{Title: name + " graph", Tract: name, Page: p}, nil
}

// relate marks the rows of a graph window (at: a commit's row) with what
// their commits say of each other: edits, summaries and skips.
func relate(rows []graphRow, at map[tract.Hash]int, rel tract.Relations) {
	for i := range rows {
		e := &rows[i].LogEntry
		if a, ok := rel.Newest[e.Hash]; ok {
			rows[i].Skipped = a.Priority == tract.Skip
		}
		if e.EditTarget == "" {
			continue
		}
		if j, ok := at[e.EditTarget]; ok && e.Operation == tract.OpEdit {
			rows[j].EditedBy = e.Hash
		}
		if e.Operation == tract.OpCompress {
			rows[i].From = rel.From[e.Hash]
			newestAt, ok1 := at[e.EditTarget]
			oldestAt, ok2 := at[rows[i].From]
			for k := newestAt; ok1 && ok2 && k <= oldestAt; k++ {
				rows[k].SummarizedBy = e.Hash
			}
		}
	}
}

// nextPage is the query of the page after a window of all (the log from
// from, or HEAD) starting at skip. It continues from the window's last
// commit on the log's first-parent chain, whose own log is the rest of this
// one, so a page deep in a long history still reads about two windows of
// commits; a window without such a commit (deep in a merged block)
// continues by skip.
func nextPage(all []tract.LogEntry, from string, skip, window int) string {
	at := make(map[tract.Hash]int, len(all))
	for i, e := range all {
		at[e.Hash] = i
	}
	last := -1
	for i, ok := 0, len(all) > 0; ok && i < skip+window; {
		if i >= skip {
			last = i
		}
		ok = len(all[i].Parents) > 0
		if ok {
			i, ok = at[all[i].Parents[0]]
		}
	}
	v := url.Values{}
	if last >= 0 {
		v.Set("from", string(all[last].Hash))
		v.Set("skip", strconv.Itoa(skip+window-last))
	} else {
		if from != "" {
			v.Set("from", from)
		}
		v.Set("skip", strconv.Itoa(skip+window))
	}
	return v.Encode()
}

type commitPage struct {
	Shown tract.Shown
	// InCompile lists the compiled messages that come from the commit
	// (its own message, or a summary standing in for it).
	InCompile []tract.BlameEntry
	Text      string
	Calls     string
}

func (s *Server) commit(ctx context.Context, r *http.Request) (string, pageData, error) {
	name, hash := r.PathValue("name"), r.PathValue("hash")
	shown, err := s.o.Repo.Show(ctx, name, hash)
	if err != nil {
		return "", pageData{}, err
	}
	p := commitPage{Shown: shown}
	if c := shown.Content; c != nil {
		p.Text = c.Text
		if len(c.ToolCalls) > 0 || len(c.Tools) > 0 {
			p.Calls = indentJSON(struct {
				ToolCalls []tract.ToolCall `json:"toolCalls,omitempty"`
				Tools     []tract.ToolDef  `json:"tools,omitempty"`
			}{c.ToolCalls, c.Tools})
		}
	}
	if p.InCompile, err = s.inCompile(ctx, name, shown.Commit.Hash); err != nil {
		return "", pageData{}, err
	}
	return "commit", pageData{Title: name + " " + shown.Commit.Hash.Short(), Tract: name, Page: p}, nil
}

// inCompile is the blame of the messages of name's compile at HEAD that
// come from commit h: its own, or a summary standing in for it. It reads
// the compile a message at a time (tract.Repo.CompileWindow with an empty
// window), keeping only those.
func (s *Server) inCompile(ctx context.Context, name string, h tract.Hash) ([]tract.BlameEntry, error) {
	var found []tract.Message
	var at []int
	i := 0
	_, err := s.o.Repo.CompileWindow(ctx, name, tract.CompileOptions{}, tract.WindowOptions{Hashes: true, Whole: s.wholeTurn, Head: func(m *tract.Message) bool {
		if m.Commit == h || slices.Contains(m.Summarizes, h) {
			found, at = append(found, m.Clone()), append(at, i)
		}
		i++
		return true
	}})
	if err != nil {
		return nil, err
	}
	var out []tract.BlameEntry
	paths := map[string][]string{}
	for j := range found {
		m := &found[j]
		path, ok := paths[m.TractID]
		if !ok {
			if path, err = s.o.Repo.SpawnPath(ctx, m.TractID); err != nil {
				return nil, err
			}
			paths[m.TractID] = path
		}
		out = append(out, m.Blame(at[j], path))
	}
	return out, nil
}

type compilePage struct {
	Result tract.Result
	// Count is how many messages the compile has.
	Count int
	// Rows are the messages shown: a window of at most maxListed of them,
	// the newest unless ?from= asks for another; Earlier and Later are the
	// from= of the windows before and after it (-1: none).
	Rows           []messageRow
	Earlier, Later int
	// DroppedRows are the first maxListed dropped messages.
	DroppedRows []tract.Dropped
	Budget      int
	Format      wire.Format
	At          string
	Request     string
	Percent     int // used share of the budget, 0–100
	Formats     []wire.Format
	Dropped     int
	DropToks    int
	// Policy is the prune policy applied (the tract's, or ?prune=),
	// PruneParam the ?prune= asked for; PrunedRows are the first
	// maxListed messages it left out, PrunedCount and PrunedTokens
	// the figures of all of them.
	Policy, PruneParam        string
	PrunedRows                []tract.Pruned
	PrunedCount, PrunedTokens int
}

// prunePolicy is the prune policy a compile page applies: param (the
// page's ?prune=, as `tract compile --prune`: "none" for none) when given,
// else the tract's stored one (`tract config prune`).
func (s *Server) prunePolicy(ctx context.Context, name, param string) (tract.PrunePolicy, error) {
	if param != "" {
		p, err := tract.ParsePrunePolicy(param)
		if err != nil {
			return tract.PrunePolicy{}, badRequest{"prune=" + param + ": " + err.Error()}
		}
		return p, nil
	}
	cfg, err := s.o.Repo.Config(ctx, name)
	if err != nil {
		return tract.PrunePolicy{}, err
	}
	return cfg.PrunePolicy(), nil
}

// messageRow is one message of a compile page with its place in the
// request.
type messageRow struct {
	N int
	tract.Message
}

// compile shows a window of the compile (tract.Repo.CompileWindow): the
// rows it lists, the first dropped messages and the start of the request
// (shownPrefix), never the whole compile held at once when the stored
// checkpoint serves it.
func (s *Server) compile(ctx context.Context, r *http.Request) (string, pageData, error) {
	name := r.PathValue("name")
	q := r.URL.Query()
	budget, err := intParam(r, "budget", 0, 0)
	if err != nil {
		return "", pageData{}, err
	}
	from, err := intParam(r, "from", -1, 0)
	if err != nil {
		return "", pageData{}, err
	}
	f := wire.Format(q.Get("format"))
	if f == "" {
		f = wire.FormatOpenAI
	}
	if f == wire.FormatJSON {
		return "", pageData{}, badRequest{"format=json: the page shows the record itself; pick openai, openai-request, anthropic or text"}
	}
	if err := f.Validate(); err != nil {
		return "", pageData{}, err
	}
	o := tract.CompileOptions{At: q.Get("at"), Budget: budget}
	if err := o.Validate(); err != nil {
		return "", pageData{}, err
	}
	prune, err := s.prunePolicy(ctx, name, q.Get("prune"))
	if err != nil {
		return "", pageData{}, err
	}
	if prune.Active() {
		o.Prune = &prune
	}
	pre := &prefixer{f: f, open: map[string]bool{}}
	// The anthropic request's start takes every later system message.
	win, err := s.o.Repo.CompileWindow(ctx, name, o, tract.WindowOptions{From: from, N: maxListed, Dropped: maxListed, Head: pre.add, Whole: s.wholeTurn,
		HeadReadsAll: f == wire.FormatAnthropic})
	if err != nil {
		return "", pageData{}, err
	}
	res := win.Result
	p := compilePage{Result: res, Count: win.Count, Budget: budget, Format: f, At: o.At, Dropped: win.DroppedCount,
		DropToks: res.DroppedTokens, DroppedRows: res.Dropped, PruneParam: q.Get("prune"), Policy: prune.String(),
		PrunedRows: res.Pruned, PrunedCount: win.PrunedCount, PrunedTokens: win.PrunedTokens,
		Formats: []wire.Format{wire.FormatOpenAI, wire.FormatOpenAIRequest, wire.FormatAnthropic, wire.FormatText}}
	res.Messages = pre.part
	if p.Request, err = requestShown(res, f, pre.n == win.Count); err != nil {
		return "", pageData{}, err
	}
	p.Rows = make([]messageRow, len(win.Messages))
	for i, m := range win.Messages {
		p.Rows[i] = messageRow{N: win.From + i, Message: m}
	}
	end := win.From + len(win.Messages)
	p.Earlier, p.Later = -1, -1
	if win.From > 0 {
		p.Earlier = max(0, win.From-maxListed)
	}
	if end < win.Count {
		p.Later = end
	}
	if budget > 0 {
		p.Percent = min(100, res.Tokens*100/budget)
	}
	return "compile", pageData{Title: name + " compile", Tract: name, Page: p}, nil
}

func indentJSON(v any) string {
	b, err := json.Marshal(v, jsontext.WithIndent("  "), jsontext.EscapeForHTML(false), jsontext.AllowInvalidUTF8(true))
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}

type diffPage struct {
	A, B string
	Diff tract.DiffResult
}

func (s *Server) diff(ctx context.Context, r *http.Request) (string, pageData, error) {
	name := r.PathValue("name")
	q := r.URL.Query()
	p := diffPage{A: q.Get("a"), B: q.Get("b")}
	if p.B == "" {
		p.B = tract.HeadRef
	}
	if p.A == "" {
		return "diff", pageData{Title: name + " diff", Tract: name, Page: p}, nil
	}
	d, err := s.o.Repo.Diff(ctx, name, p.A, p.B, "")
	if err != nil {
		return "", pageData{}, err
	}
	p.Diff = d
	return "diff", pageData{Title: name + " diff", Tract: name, Page: p}, nil
}

type findPage struct {
	Query string
	All   bool
	Found []tract.Found
	Cut   bool
}

func (s *Server) find(ctx context.Context, r *http.Request) (string, pageData, error) {
	name := r.PathValue("name")
	q := r.URL.Query()
	p := findPage{Query: q.Get("q"), All: q.Get("all") == "1"}
	if strings.TrimSpace(p.Query) == "" {
		return "find", pageData{Title: name + " find", Tract: name, Page: p}, nil
	}
	o := tract.FindOptions{Text: p.Query, AllTracts: p.All, Limit: maxListed + 1}
	if err := o.Validate(); err != nil {
		return "", pageData{}, err
	}
	found, err := s.o.Repo.Find(ctx, name, o)
	if err != nil {
		return "", pageData{}, err
	}
	if len(found) > maxListed {
		found, p.Cut = found[:maxListed], true
	}
	p.Found = found
	return "find", pageData{Title: name + " find", Tract: name, Page: p}, nil
}

type instructionsPage struct {
	Dir         string
	Explanation instructions.Explanation
	Slug        string
	Profile     *profileView
	ProfileErr  string
}

type profileView struct {
	Fields   []fieldSource
	Document string
}

type fieldSource struct{ Pointer, File string }

func (s *Server) instructions(ctx context.Context, r *http.Request) (string, pageData, error) {
	q := r.URL.Query()
	p := instructionsPage{Dir: q.Get("dir"), Slug: strings.TrimSpace(q.Get("slug"))}
	if p.Dir == "" {
		p.Dir = "."
	}
	// The pages show the tree the server was started in: dir is relative
	// to it and may not climb out, by ".." or by a symbolic link.
	target, err := s.servedDir(p.Dir)
	if err != nil {
		return "", pageData{}, err
	}
	p.Explanation = instructions.Explain(s.o.Instructions, target)
	if p.Slug != "" {
		ao := s.o.Agents
		ao.Path = target
		ch, err := agents.Resolve(ao, p.Slug)
		var prof *agents.Profile
		if err == nil {
			prof, err = ch.RequireProfile(triad.Agent)
		}
		if err != nil {
			p.ProfileErr = err.Error()
		} else {
			v := &profileView{Document: string(triad.Encode(prof.Merged, triad.EncodeOptions{}))}
			for _, ptr := range prof.SortedPointers() {
				v.Fields = append(v.Fields, fieldSource{Pointer: ptr, File: prof.Provenance[ptr]})
			}
			p.Profile = v
		}
	}
	return "instructions", pageData{Title: "Instructions", Page: p}, nil
}
