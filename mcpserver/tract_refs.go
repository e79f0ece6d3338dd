package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

// BranchInput are the arguments of tract_branch: list (no name, no
// delete), create name (from a ref), or delete.
type BranchInput struct {
	TractArg
	Name   string `json:"name,omitempty" jsonschema:"branch to create"`
	From   string `json:"from,omitempty" jsonschema:"ref the new branch starts at (default HEAD)"`
	Delete string `json:"delete,omitempty" jsonschema:"branch to delete"`
	Force  bool   `json:"force,omitempty" jsonschema:"delete even when not merged into HEAD"`
}

// BranchOutput is what tract_branch did: the branches (tract branch
// --json), the branch created, or the branch deleted.
type BranchOutput struct {
	Branches []tract.Branch `json:"branches,omitempty"`
	Created  *tract.Branch  `json:"created,omitempty"`
	Deleted  string         `json:"deleted,omitempty"`
}

// SwitchInput are the arguments of tract_switch.
type SwitchInput struct {
	TractArg
	Name string `json:"name" jsonschema:"branch to make current; - is the branch HEAD was on before"`
}

// SwitchOutput names the current branch and its tip after the switch.
type SwitchOutput struct {
	Tract  string     `json:"tract"`
	Branch string     `json:"branch"`
	Head   tract.Hash `json:"head"`
}

// MergeInput are the arguments of tract_merge.
type MergeInput struct {
	TractArg
	Branch       string `json:"branch" jsonschema:"branch (or ref) to merge into the current branch"`
	NoFF         bool   `json:"noFF,omitempty" jsonschema:"record a merge commit even when a fast-forward is possible"`
	Strategy     string `json:"strategy,omitempty" jsonschema:"resolve conflicts: ours or theirs (recorded as an edit on top of the merge); without it a conflict changes nothing and is reported"`
	Message      string `json:"message,omitempty" jsonschema:"the merge commit's message (default: merge BRANCH)"`
	DeleteBranch bool   `json:"deleteBranch,omitempty" jsonschema:"delete the merged branch afterwards"`
}

// AnnotateInput are the arguments of tract_annotate.
type AnnotateInput struct {
	TractArg
	Ref      string `json:"ref" jsonschema:"commit to annotate (hash, prefix, branch, HEAD~N, TRACT:REF)"`
	Priority string `json:"priority" jsonschema:"skip, normal, important or pinned, as seen by this tract"`
	Reason   string `json:"reason,omitempty" jsonschema:"why"`
}

// EditInput are the arguments of tract_edit.
type EditInput struct {
	TractArg
	Ref     string `json:"ref" jsonschema:"this tract's commit whose content to replace"`
	Text    string `json:"text" jsonschema:"new text"`
	Message string `json:"message,omitempty" jsonschema:"commit message"`
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
}

func (s *Server) addTractRefTools() {
	addTool(s, &mcp.Tool{
		Name:        "tract_branch",
		Title:       "List, create or delete tract branches",
		Description: "Without arguments, list the tract's branches (as `lineage tract branch --json`); with name, create a branch (at from, default HEAD); with delete, delete a branch (force: even unmerged).",
		Annotations: hints(false, true, false),
	}, s.toolBranch)
	addTool(s, &mcp.Tool{
		Name:        "tract_switch",
		Title:       "Switch the current branch",
		Description: "Make a branch the tract's current branch (HEAD), as `lineage tract switch`.",
		Annotations: hints(false, false, true),
	}, s.toolSwitch)
	addTool(s, &mcp.Tool{
		Name:        "tract_merge",
		Title:       "Merge a branch",
		Description: "Merge a branch into the current one, as `lineage tract merge --json`: fast-forward when possible, else a merge commit. Conflicts change nothing and are reported unless a strategy is given.",
		Annotations: hints(false, false, false),
		InputSchema: withEnums[MergeInput](map[string][]string{"strategy": {tract.StrategyOurs, tract.StrategyTheirs}}),
	}, s.toolMerge)
	addTool(s, &mcp.Tool{
		Name:        "tract_annotate",
		Title:       "Set a commit's priority",
		Description: "Record how this tract sees a commit (skip, normal, important, pinned), as `lineage tract annotate`; the newest annotation counts, older ones are kept.",
		Annotations: hints(false, false, false),
		InputSchema: withEnums[AnnotateInput](map[string][]string{"priority": strs(tract.Skip, tract.Normal, tract.Important, tract.Pinned)}),
	}, s.toolAnnotate)
	addTool(s, &mcp.Tool{
		Name:        "tract_edit",
		Title:       "Edit a commit",
		Description: "Replace the content of one of this tract's commits with an edit commit (history is kept), as `lineage tract edit`. Returns the edit commit.",
		Annotations: hints(false, false, false),
	}, s.toolEdit)
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
		Description: "Record in the parent a merge commit whose parents are [parent head, child head], as `lineage tract merge-from --json`: the parent's compile then shows the child's own work once. Nothing is copied. range, types, roles and tags narrow what it takes (recorded in the merge); dryRun lists what it would add, with tokens.",
		Annotations: hints(false, false, false),
	}, s.toolMergeFrom)
}

func (s *Server) toolBranch(ctx context.Context, _ *mcp.CallToolRequest, in BranchInput) (*mcp.CallToolResult, BranchOutput, error) {
	if in.Delete != "" && in.Name != "" {
		return nil, BranchOutput{}, fmt.Errorf("give a branch to create (name) or delete, not both")
	}
	if in.From != "" && in.Name == "" {
		return nil, BranchOutput{}, fmt.Errorf("from: only with name")
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, BranchOutput{}, err
	}
	name := s.tractName(in.Tract)
	switch {
	case in.Delete != "":
		err := repo.DeleteBranch(ctx, name, in.Delete, in.Force)
		return nil, BranchOutput{Deleted: in.Delete}, err
	case in.Name != "":
		b, err := repo.CreateBranch(ctx, name, in.Name, in.From)
		return nil, BranchOutput{Created: &b}, err
	}
	bs, err := repo.Branches(ctx, name)
	if bs == nil {
		bs = []tract.Branch{}
	}
	return nil, BranchOutput{Branches: bs}, err
}

func (s *Server) toolSwitch(ctx context.Context, _ *mcp.CallToolRequest, in SwitchInput) (*mcp.CallToolResult, SwitchOutput, error) {
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, SwitchOutput{}, err
	}
	name := s.tractName(in.Tract)
	if err := repo.Switch(ctx, name, in.Name); err != nil {
		return nil, SwitchOutput{}, err
	}
	bs, err := repo.Branches(ctx, name)
	if err != nil {
		return nil, SwitchOutput{}, err
	}
	out := SwitchOutput{Tract: name, Branch: in.Name}
	for _, b := range bs {
		if b.Current {
			out.Branch, out.Head = b.Name, b.Commit
		}
	}
	return nil, out, nil
}

func (s *Server) toolMerge(ctx context.Context, _ *mcp.CallToolRequest, in MergeInput) (*mcp.CallToolResult, tract.MergeResult, error) {
	o := tract.MergeOptions{NoFF: in.NoFF, Strategy: in.Strategy, Message: in.Message, DeleteBranch: in.DeleteBranch}
	if err := o.Validate(); err != nil {
		return nil, tract.MergeResult{}, err
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.MergeResult{}, err
	}
	res, err := repo.Merge(ctx, s.tractName(in.Tract), in.Branch, o)
	if res.Resolved == nil {
		res.Resolved = []tract.Conflict{}
	}
	return nil, res, err
}

func (s *Server) toolAnnotate(ctx context.Context, _ *mcp.CallToolRequest, in AnnotateInput) (*mcp.CallToolResult, tract.Annotation, error) {
	p, err := tract.ParsePriority(in.Priority)
	if err != nil {
		return nil, tract.Annotation{}, err
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.Annotation{}, err
	}
	a, err := repo.Annotate(ctx, s.tractName(in.Tract), in.Ref, p, in.Reason)
	return nil, a, err
}

func (s *Server) toolEdit(ctx context.Context, _ *mcp.CallToolRequest, in EditInput) (*mcp.CallToolResult, tract.Commit, error) {
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.Commit{}, err
	}
	c, err := repo.Edit(ctx, s.tractName(in.Tract), in.Ref, in.Text, in.Message)
	return nil, c, err
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
	o := tract.MergeFromOptions{Into: in.Into, Range: in.Range, Roles: in.Roles, Tags: in.Tags, DryRun: in.DryRun}
	for _, t := range in.Types {
		o.Types = append(o.Types, tract.Type(t))
	}
	res, err := repo.MergeFromWith(ctx, in.Child, o)
	return nil, res, err
}
