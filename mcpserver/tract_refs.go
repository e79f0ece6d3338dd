package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

// addTractRefTools registers branches, tags and moving HEAD: branch, switch, merge, reset, checkout, cherry_pick, tag.
func (s *Server) addTractRefTools() {
	addTool(s, &mcp.Tool{
		Name:        "tract_reset",
		Title:       "Rewind the current branch",
		Description: "Move the current branch (or detached HEAD) to a ref, as `lineage tract reset`: rewind to a checkpoint tag or HEAD~N. The old tip stays in the reflog (and reachable by a tag or branch you made).",
		Annotations: hints(false, true, true),
	}, s.toolReset)
	addTool(s, &mcp.Tool{
		Name:        "tract_checkout",
		Title:       "Detach HEAD at a commit",
		Description: "Detach HEAD at a ref to look at or compile an older context, as `lineage tract checkout --json`; ref - goes back (to a branch, attached again).",
		Annotations: hints(false, false, true),
	}, s.toolCheckout)
	addTool(s, &mcp.Tool{
		Name:        "tract_cherry_pick",
		Title:       "Copy a commit onto HEAD",
		Description: "Append a commit with the same content as ref on the current branch, as `lineage tract cherry-pick --json` (bring back one message from an abandoned branch).",
		Annotations: hints(false, false, false),
	}, s.toolCherryPick)
	addTool(s, &mcp.Tool{
		Name:        "tract_tag",
		Title:       "List, create or delete tags",
		Description: "Without arguments, list the tract's tags (as `lineage tract tags --json`); with name, tag a commit (ref, default HEAD); with delete, delete a tag. A tag is a fixed ref: it resolves wherever a ref is taken and keeps its commit through gc.",
		Annotations: hints(false, true, false),
	}, s.toolTag)
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
}

// The agent's own verbs: an agent checkpoints, rewinds and inspects its own
// context with these (see the guide in the server instructions).

// RefInput names one ref of a tract.
type RefInput struct {
	TractArg
	Ref string `json:"ref" jsonschema:"a ref: hash or prefix, branch, tag, HEAD, HEAD~N, TRACT:REF, or a time (RFC 3339)"`
}

// CheckoutInput are the arguments of tract_checkout.
type CheckoutInput struct {
	TractArg
	Ref string `json:"ref" jsonschema:"the commit to detach HEAD at; - goes back to where HEAD was before the last switch or checkout"`
}

// HeadOutput is where HEAD is after a move.
type HeadOutput struct {
	Tract string `json:"tract"`
	// Branch is the branch HEAD is attached to; absent when detached.
	Branch string     `json:"branch,omitempty"`
	Head   tract.Hash `json:"head"`
}

func (s *Server) toolReset(ctx context.Context, _ *mcp.CallToolRequest, in RefInput) (*mcp.CallToolResult, HeadOutput, error) {
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, HeadOutput{}, err
	}
	if _, err := repo.Reset(ctx, s.tractName(in.Tract), in.Ref); err != nil {
		return nil, HeadOutput{}, err
	}
	return s.headOutput(ctx, repo, in.Tract)
}

func (s *Server) toolCheckout(ctx context.Context, _ *mcp.CallToolRequest, in CheckoutInput) (*mcp.CallToolResult, HeadOutput, error) {
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, HeadOutput{}, err
	}
	if _, err := repo.Checkout(ctx, s.tractName(in.Tract), in.Ref); err != nil {
		return nil, HeadOutput{}, err
	}
	return s.headOutput(ctx, repo, in.Tract)
}

func (s *Server) headOutput(ctx context.Context, repo *tract.Repo, name string) (*mcp.CallToolResult, HeadOutput, error) {
	t, h, err := repo.Head(ctx, s.tractName(name))
	if err != nil {
		return nil, HeadOutput{}, err
	}
	return nil, HeadOutput{Tract: t.Name, Branch: h.Branch, Head: h.Commit}, nil
}

func (s *Server) toolCherryPick(ctx context.Context, _ *mcp.CallToolRequest, in RefInput) (*mcp.CallToolResult, tract.Commit, error) {
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.Commit{}, err
	}
	c, err := repo.CherryPick(ctx, s.tractName(in.Tract), in.Ref)
	return nil, c, err
}

// TagInput are the arguments of tract_tag: list (no name), create name (at
// ref), or delete.
type TagInput struct {
	TractArg
	Name   string `json:"name,omitempty" jsonschema:"tag to create"`
	Ref    string `json:"ref,omitempty" jsonschema:"commit the new tag names (default HEAD)"`
	Delete string `json:"delete,omitempty" jsonschema:"tag to delete"`
}

// TagOutput is what tract_tag did: the tags (tract tags --json), the tag
// created, or the tag deleted.
type TagOutput struct {
	Tags    []tract.Tag `json:"tags,omitempty"`
	Created *tract.Tag  `json:"created,omitempty"`
	Deleted *tract.Tag  `json:"deleted,omitempty"`
}

func (s *Server) toolTag(ctx context.Context, _ *mcp.CallToolRequest, in TagInput) (*mcp.CallToolResult, TagOutput, error) {
	if in.Delete != "" && in.Name != "" {
		return nil, TagOutput{}, fmt.Errorf("give a tag to create (name) or delete, not both")
	}
	if in.Ref != "" && in.Name == "" {
		return nil, TagOutput{}, fmt.Errorf("ref: only with name")
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, TagOutput{}, err
	}
	name := s.tractName(in.Tract)
	switch {
	case in.Delete != "":
		t, err := repo.DeleteTag(ctx, name, in.Delete)
		return nil, TagOutput{Deleted: &t}, err
	case in.Name != "":
		t, err := repo.CreateTag(ctx, name, in.Name, in.Ref)
		return nil, TagOutput{Created: &t}, err
	}
	tags, err := repo.Tags(ctx, name)
	return nil, TagOutput{Tags: tags}, err
}

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
