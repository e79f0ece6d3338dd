package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

// LogInput are the arguments of tract_log.
type LogInput struct {
	TractArg
	Limit  int    `json:"limit,omitempty" jsonschema:"most commits in this page (default 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
	All    bool   `json:"all,omitempty" jsonschema:"every branch's history, not just HEAD's"`
	Type   string `json:"type,omitempty" jsonschema:"only commits of this content type"`
	Role   string `json:"role,omitempty" jsonschema:"only commits of this role"`
	Tag    string `json:"tag,omitempty" jsonschema:"only the commit this tag names"`
}

// LogOutput is one page of tract log --json, newest first.
type LogOutput struct {
	Entries    []tract.LogEntry `json:"entries"`
	NextCursor string           `json:"nextCursor,omitempty" jsonschema:"pass as cursor for the next page; absent on the last page"`
}

const defaultLogLimit = 50

func (s *Server) toolLog(ctx context.Context, _ *mcp.CallToolRequest, in LogInput) (*mcp.CallToolResult, LogOutput, error) {
	limit := in.Limit
	if limit < 0 {
		return nil, LogOutput{}, fmt.Errorf("limit: must be 0 or more, got %d", limit)
	}
	if limit == 0 {
		limit = defaultLogLimit
	}
	name := s.tractName(in.Tract)
	list := "log:" + name
	if in.All {
		list += ":all"
	}
	if in.Type != "" || in.Role != "" || in.Tag != "" {
		list += ":" + in.Type + ":" + in.Role + ":" + in.Tag
	}
	from, err := decodeCursor(list, in.Cursor)
	if err != nil {
		return nil, LogOutput{}, fmt.Errorf("cursor: %w", err)
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, LogOutput{}, err
	}
	entries, err := repo.Log(ctx, name, tract.LogOptions{All: in.All, Type: tract.Type(in.Type), Role: in.Role, Tag: in.Tag})
	if err != nil {
		return nil, LogOutput{}, err
	}
	start := 0
	if from != "" {
		start = -1
		for i, e := range entries {
			if string(e.Hash) == from {
				start = i
				break
			}
		}
		if start < 0 {
			return nil, LogOutput{}, errors.New("cursor: that commit is no longer in the history (the branch moved back); start again without a cursor")
		}
	}
	page := entries[start:]
	if len(page) > limit {
		page = page[:limit]
	}
	page, _ = fitPage(page, s.opts.MaxResultTokens*9/10, func(p []tract.LogEntry) int {
		return resultTokens(s.opts.Tokens, LogOutput{Entries: p})
	})
	out := LogOutput{Entries: page}
	if out.Entries == nil {
		out.Entries = []tract.LogEntry{}
	}
	if next := start + len(page); next < len(entries) {
		out.NextCursor = encodeCursor(list, string(entries[next].Hash))
	}
	return nil, out, nil
}

// addTractHistoryTools registers reading the history: log, show, find, diff.
func (s *Server) addTractHistoryTools() {
	addTool(s, &mcp.Tool{
		Name:        "tract_log",
		Title:       "Tract history",
		Description: "A page of the tract's history, newest first, as `lineage tract log --json`; type, role and tag keep only matching commits; pass nextCursor back as cursor for the next page.",
		Annotations: hints(true, false, true),
	}, s.toolLog)
	addTool(s, &mcp.Tool{
		Name:        "tract_show",
		Title:       "One commit",
		Description: "A commit with its content, blob and annotations, as `lineage tract show --json`.",
		Annotations: hints(true, false, true),
	}, s.toolShow)
	addTool(s, &mcp.Tool{
		Name:        "tract_find",
		Title:       "Find commits",
		Description: "Commits whose content holds every word of text, filtered by type, role, tag and metadata, oldest first, as `lineage tract find --json`. Searches this tract's own commits unless allTracts.",
		Annotations: hints(true, false, true),
	}, s.toolFind)
	addTool(s, &mcp.Tool{
		Name:        "tract_diff",
		Title:       "Diff two compiled contexts",
		Description: "What changed between the compiled contexts at two refs (to defaults to HEAD), as `lineage tract diff --json`: messages added, removed, edited and reprioritized, in the newer side's order. Long diffs come in pages: pass nextCursor back as cursor.",
		Annotations: hints(true, false, true),
	}, s.toolDiff)
	addTool(s, &mcp.Tool{
		Name:        "tract_blame",
		Title:       "Where each compiled message came from",
		Description: "Every compiled message mapped to its commit, author tract and spawn path (and, for a summary, the commits it stands in for), as `lineage tract blame --json`; at and budget as tract_compile. Long results come in pages: pass nextCursor back as cursor.",
		Annotations: hints(true, false, true),
	}, s.toolBlame)
}

// BlameInput are the arguments of tract_blame.
type BlameInput struct {
	TractArg
	At     string `json:"at,omitempty" jsonschema:"blame the compile as of this ref or time"`
	Budget int    `json:"budget,omitempty" jsonschema:"blame the compile under this token budget"`
	Cursor string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
}

// BlameOutput is one page of tract blame --json, in compiled order.
type BlameOutput struct {
	Entries    []tract.BlameEntry `json:"entries"`
	NextCursor string             `json:"nextCursor,omitempty" jsonschema:"pass as cursor (with the same at and budget) for the next page; absent on the last page"`
}

func (s *Server) toolBlame(ctx context.Context, _ *mcp.CallToolRequest, in BlameInput) (*mcp.CallToolResult, BlameOutput, error) {
	if in.Budget < 0 {
		return nil, BlameOutput{}, fmt.Errorf("budget: must be above 0, got %d", in.Budget)
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, BlameOutput{}, err
	}
	name := s.tractName(in.Tract)
	entries, err := repo.Blame(ctx, name, tract.CompileOptions{At: in.At, Budget: in.Budget})
	if err != nil {
		return nil, BlameOutput{}, err
	}
	// A cursor belongs to this compile: a context that changed since
	// the first page (another last message, another length) refuses it.
	list := fmt.Sprintf("blame:%s:%s:%d:%d", name, in.At, in.Budget, len(entries))
	if len(entries) > 0 {
		list += ":" + string(entries[len(entries)-1].Commit)
	}
	next, err := decodeCursor(list, in.Cursor)
	if err != nil {
		return nil, BlameOutput{}, fmt.Errorf("cursor: %w", err)
	}
	start := 0
	if next != "" {
		if start, err = strconv.Atoi(next); err != nil || start <= 0 || start >= len(entries) {
			return nil, BlameOutput{}, fmt.Errorf("cursor: %w", errBadCursor)
		}
	}
	page, more := fitPage(entries[start:], s.opts.MaxResultTokens*9/10, func(p []tract.BlameEntry) int {
		return resultTokens(s.opts.Tokens, BlameOutput{Entries: p})
	})
	out := BlameOutput{Entries: page}
	if out.Entries == nil {
		out.Entries = []tract.BlameEntry{}
	}
	if more {
		out.NextCursor = encodeCursor(list, strconv.Itoa(start+len(page)))
	}
	return nil, out, nil
}

func (s *Server) toolShow(ctx context.Context, _ *mcp.CallToolRequest, in RefInput) (*mcp.CallToolResult, tract.Shown, error) {
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.Shown{}, err
	}
	sh, err := repo.Show(ctx, s.tractName(in.Tract), in.Ref)
	// The nested commit names its tract like every other result.
	sh.Commit.Tract = sh.Tract
	if sh.Annotations == nil {
		sh.Annotations = []tract.Annotation{}
	}
	return nil, sh, err
}

// FindInput are the arguments of tract_find (as tract find).
type FindInput struct {
	TractArg
	Text      string            `json:"text,omitempty" jsonschema:"words that must all occur in the content (whole words, any case)"`
	Type      string            `json:"type,omitempty" jsonschema:"only this content type"`
	Role      string            `json:"role,omitempty" jsonschema:"only this role"`
	Tag       string            `json:"tag,omitempty" jsonschema:"only the commit this tag names"`
	Meta      map[string]string `json:"meta,omitempty" jsonschema:"metadata key → value each match must hold"`
	AllTracts bool              `json:"allTracts,omitempty" jsonschema:"search every tract, not only this one's commits"`
	Limit     int               `json:"limit,omitempty" jsonschema:"most results (default 50)"`
}

// FindOutput lists the matching commits, oldest first.
type FindOutput struct {
	Found []tract.Found `json:"found"`
}

const defaultFindLimit = 50

func (s *Server) toolFind(ctx context.Context, _ *mcp.CallToolRequest, in FindInput) (*mcp.CallToolResult, FindOutput, error) {
	if in.Limit < 0 {
		return nil, FindOutput{}, fmt.Errorf("limit: must be 0 or more, got %d", in.Limit)
	}
	if in.Limit == 0 {
		in.Limit = defaultFindLimit
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, FindOutput{}, err
	}
	found, err := repo.Find(ctx, s.tractName(in.Tract), tract.FindOptions{Text: in.Text, Type: tract.Type(in.Type), Role: in.Role,
		Tag: in.Tag, Meta: in.Meta, AllTracts: in.AllTracts, Limit: in.Limit})
	return nil, FindOutput{Found: found}, err
}

// DiffInput are the arguments of tract_diff.
type DiffInput struct {
	TractArg
	From     string `json:"from" jsonschema:"the older ref (hash, prefix, branch, HEAD~N, TRACT:REF)"`
	To       string `json:"to,omitempty" jsonschema:"the newer ref (default HEAD)"`
	Encoding string `json:"encoding,omitempty" jsonschema:"token encoding: o200k_base (default) or cl100k_base"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
}

// DiffOutput is one page of tract diff --json: the changes that fit, and
// the cursor of the rest.
type DiffOutput struct {
	tract.DiffResult
	NextCursor string `json:"nextCursor,omitempty" jsonschema:"pass as cursor (with the same from and to) for the next page of changes; absent on the last page"`
}

func (s *Server) toolDiff(ctx context.Context, _ *mcp.CallToolRequest, in DiffInput) (*mcp.CallToolResult, DiffOutput, error) {
	if in.From == "" {
		return nil, DiffOutput{}, fmt.Errorf("from: give the ref to diff against (to defaults to HEAD)")
	}
	to := in.To
	if to == "" {
		to = tract.HeadRef
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, DiffOutput{}, err
	}
	name := s.tractName(in.Tract)
	d, err := repo.Diff(ctx, name, in.From, to, in.Encoding)
	if err != nil {
		return nil, DiffOutput{}, err
	}
	// A cursor belongs to the diff of these two commits: if a ref moved
	// since the first page, the cursor is refused rather than misapplied.
	list := "diff:" + name + ":" + string(d.From.Head) + ".." + string(d.To.Head)
	next, err := decodeCursor(list, in.Cursor)
	if err != nil {
		return nil, DiffOutput{}, fmt.Errorf("cursor: %w", err)
	}
	start := 0
	if next != "" {
		if start, err = strconv.Atoi(next); err != nil || start <= 0 || start >= len(d.Changes) {
			return nil, DiffOutput{}, fmt.Errorf("cursor: %w", errBadCursor)
		}
	}
	all := d.Changes
	page, more := fitPage(all[start:], s.opts.MaxResultTokens*9/10, func(p []tract.Change) int {
		d.Changes = p
		return resultTokens(s.opts.Tokens, DiffOutput{DiffResult: d})
	})
	out := DiffOutput{DiffResult: d}
	out.Changes = page
	if more {
		out.NextCursor = encodeCursor(list, strconv.Itoa(start+len(page)))
	}
	return nil, out, nil
}
