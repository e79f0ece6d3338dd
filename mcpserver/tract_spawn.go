package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

// addTractSpawnTools registers child tracts: spawn, merge_from.
func (s *Server) addTractSpawnTools() {
	addTool(s, &mcp.Tool{
		Name:        "tract_spawn",
		Title:       "Spawn a child tract",
		Description: "Create a child tract for a sub-agent from the tract's current head, as `lineage tract spawn --json`: by reference (nothing copied), as a snapshot or empty.",
		Annotations: hints(false, false, false),
		InputSchema: withEnums[SpawnInput](map[string][]string{"mode": strs(tract.SpawnReference, tract.SpawnSnapshot, tract.SpawnEmpty)}),
	}, s.toolSpawn)
	addTool(s, &mcp.Tool{
		Name:        "tract_merge_from",
		Title:       "Merge a child's work",
		Description: "Record in the parent a merge commit whose parents are [parent head, child head], as `lineage tract merge-from --json`: the parent's compile then shows the child's own work once. Nothing is copied. range, types, roles and tags narrow what it takes (recorded in the merge) and never give up what they leave out: a later merge offers it again. A selection that takes nothing is refused unless allowEmpty; dryRun lists what it would add, with tokens.",
		Annotations: hints(false, false, false),
	}, s.toolMergeFrom)
}

// SpawnInput are the arguments of tract_spawn.
type SpawnInput struct {
	TractArg
	Child   string `json:"child" jsonschema:"name of the new child tract"`
	Purpose string `json:"purpose" jsonschema:"what the child is for"`
	Mode    string `json:"mode,omitempty" jsonschema:"reference (default: sees the parent's context by reference), snapshot (a seed with the compiled parent context) or empty (a seed with the purpose)"`
	Budget  int    `json:"budget,omitempty" jsonschema:"token budget of a snapshot"`
}

// MergeFromInput are the arguments of tract_merge_from.
type MergeFromInput struct {
	Child  string   `json:"child" jsonschema:"child tract whose work to merge"`
	Into   string   `json:"into,omitempty" jsonschema:"parent tract (default: the child's spawn parent)"`
	Range  string   `json:"range,omitempty" jsonschema:"take only FROM..TO of the child's first-parent history, both included (refs of the child)"`
	Types  []string `json:"types,omitempty" jsonschema:"take only commits of these content types"`
	Roles  []string `json:"roles,omitempty" jsonschema:"take only commits of these roles"`
	Tags   []string `json:"tags,omitempty" jsonschema:"take only the commits these tags of the child name"`
	DryRun bool     `json:"dryRun,omitempty" jsonschema:"list the messages the merge would add, with tokens, and store nothing"`
	// AllowEmpty records a selective merge that takes nothing.
	AllowEmpty bool `json:"allowEmpty,omitempty" jsonschema:"record the merge even when the selection takes nothing (refused otherwise)"`
}

func (s *Server) toolSpawn(ctx context.Context, _ *mcp.CallToolRequest, in SpawnInput) (*mcp.CallToolResult, tract.Tract, error) {
	o := tract.SpawnOptions{Purpose: in.Purpose, Mode: tract.SpawnMode(in.Mode), Budget: in.Budget}
	if err := o.Validate(); err != nil {
		return nil, tract.Tract{}, err
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.Tract{}, err
	}
	t, err := repo.Spawn(ctx, s.tractName(in.Tract), in.Child, o)
	return nil, t, err
}

func (s *Server) toolMergeFrom(ctx context.Context, _ *mcp.CallToolRequest, in MergeFromInput) (*mcp.CallToolResult, tract.MergeFromResult, error) {
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.MergeFromResult{}, err
	}
	o := tract.MergeFromOptions{Into: in.Into, Range: in.Range, Roles: in.Roles, Tags: in.Tags, DryRun: in.DryRun, AllowEmpty: in.AllowEmpty}
	for _, t := range in.Types {
		o.Types = append(o.Types, tract.Type(t))
	}
	res, err := repo.MergeFromWith(ctx, in.Child, o)
	return nil, res, err
}
