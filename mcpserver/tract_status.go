package mcpserver

import (
	"context"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

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

// ConfigInput are the arguments of tract_config: without value it reads
// the settings, with one it stores it.
type ConfigInput struct {
	TractArg
	Key   string `json:"key,omitempty" jsonschema:"the setting to store: budget (the tokens tract_status measures against and tract_compress_plan plans for) or warn-at (the share of the budget at which tract_commit reports warn with a compression plan, default 0.85)"`
	Value string `json:"value,omitempty" jsonschema:"the value to store: a positive number of tokens for budget, a share above 0 and at most 1 for warn-at, or none to remove it; without it the settings are read"`
}

// addTractStatusTools registers diff, status and config.
func (s *Server) addTractStatusTools() {
	addTool(s, &mcp.Tool{
		Name:        "tract_diff",
		Title:       "Diff two compiled contexts",
		Description: "What changed between the compiled contexts at two refs (to defaults to HEAD), as `lineage tract diff --json`: messages added, removed, edited and reprioritized, in the newer side's order. Long diffs come in pages: pass nextCursor back as cursor.",
		Annotations: hints(true, false, true),
	}, s.toolDiff)
	addTool(s, &mcp.Tool{
		Name:        "tract_status",
		Title:       "Where a tract stands",
		Description: "The tract's branch and head, its compiled tokens against the stored budget (pressure is their ratio; warn says it is at or above warn-at, with the plan to compress; over says it exceeds the budget: see tract_compress_plan), spawned children with work not merged back, and how far every other branch is ahead of and behind HEAD, as `lineage tract status --json`.",
		Annotations: hints(true, false, true),
	}, s.toolStatus)
	addTool(s, &mcp.Tool{
		Name:        "tract_config",
		Title:       "Read or store a tract's settings",
		Description: "Without value, the tract's settings; with key and value, store one (value none removes it), as `lineage tract config [budget [N|none] | warn-at [RATIO|none]] --json`. Storing replaces the previous value.",
		Annotations: hints(false, true, true),
		InputSchema: withEnums[ConfigInput](map[string][]string{"key": tract.ConfigKeys}),
	}, s.toolConfig)
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

func (s *Server) toolStatus(ctx context.Context, _ *mcp.CallToolRequest, in TractArg) (*mcp.CallToolResult, tract.Status, error) {
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.Status{}, err
	}
	st, err := repo.Status(ctx, s.tractName(in.Tract))
	return nil, st, err
}

func (s *Server) toolConfig(ctx context.Context, _ *mcp.CallToolRequest, in ConfigInput) (*mcp.CallToolResult, tract.Config, error) {
	if in.Value != "" && in.Key == "" {
		return nil, tract.Config{}, fmt.Errorf("key: name the setting to store %q in (one of %v)", in.Value, tract.ConfigKeys)
	}
	if in.Key != "" && in.Value == "" {
		return nil, tract.Config{}, fmt.Errorf("value: give the value of %s to store (none removes it)", in.Key)
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.Config{}, err
	}
	if in.Key == "" {
		cfg, err := repo.Config(ctx, s.tractName(in.Tract))
		return nil, cfg, err
	}
	cfg, err := repo.SetConfig(ctx, s.tractName(in.Tract), in.Key, in.Value)
	return nil, cfg, err
}
