package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

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

// ExportInput are the arguments of tract_export.
type ExportInput struct {
	TractArg
	All  bool   `json:"all,omitempty" jsonschema:"every live tract and every stored commit, not one tract"`
	Path string `json:"path,omitempty" jsonschema:"write the export to this file (inside the client's roots; relative to the working directory) instead of returning it"`
}

// ExportOutput is an export: the counts, and its JSON Lines in export or
// the file it was written to.
type ExportOutput struct {
	tract.ExportReport
	Path   string `json:"path,omitempty"`
	Export string `json:"export,omitempty" jsonschema:"the export as JSON Lines (lineage tract export), when no path was given"`
}

func (s *Server) addTractAgentTools() {
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
		Name:        "tract_show",
		Title:       "One commit",
		Description: "A commit with its content, blob and annotations, as `lineage tract show --json`.",
		Annotations: hints(true, false, true),
	}, s.toolShow)
	addTool(s, &mcp.Tool{
		Name:        "tract_cherry_pick",
		Title:       "Copy a commit onto HEAD",
		Description: "Append a commit with the same content as ref on the current branch, as `lineage tract cherry-pick --json` (bring back one message from an abandoned branch).",
		Annotations: hints(false, false, false),
	}, s.toolCherryPick)
	addTool(s, &mcp.Tool{
		Name:        "tract_export",
		Title:       "Export tracts",
		Description: "The tract (or, with all, the whole store) as `lineage tract export` JSON Lines: returned in export when it fits one result, or written to path (a file inside the client's roots, replaced atomically).",
		Annotations: hints(false, false, true),
	}, s.toolExport)
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

func (s *Server) toolShow(ctx context.Context, _ *mcp.CallToolRequest, in RefInput) (*mcp.CallToolResult, tract.Shown, error) {
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.Shown{}, err
	}
	sh, err := repo.Show(ctx, s.tractName(in.Tract), in.Ref)
	if sh.Annotations == nil {
		sh.Annotations = []tract.Annotation{}
	}
	return nil, sh, err
}

func (s *Server) toolCherryPick(ctx context.Context, _ *mcp.CallToolRequest, in RefInput) (*mcp.CallToolResult, tract.Commit, error) {
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.Commit{}, err
	}
	c, err := repo.CherryPick(ctx, s.tractName(in.Tract), in.Ref)
	return nil, c, err
}

// errExportTooLarge is an export without a path that does not fit a result.
var errExportTooLarge = errors.New("the export is too large for one result: give path, a file inside your roots, to write it there")

func (s *Server) toolExport(ctx context.Context, req *mcp.CallToolRequest, in ExportInput) (*mcp.CallToolResult, ExportOutput, error) {
	o := tract.ExportOptions{All: in.All}
	if !in.All {
		o.Tract = s.tractName(in.Tract)
	} else if in.Tract != "" {
		return nil, ExportOutput{}, fmt.Errorf("tract: give a tract or all, not both")
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, ExportOutput{}, err
	}
	if in.Path == "" {
		var buf bytes.Buffer
		rep, err := repo.Export(ctx, &buf, o)
		if err != nil {
			return nil, ExportOutput{}, err
		}
		out := ExportOutput{ExportReport: rep, Export: buf.String()}
		if resultTokens(s.opts.Tokens, out) > s.opts.MaxResultTokens {
			return nil, ExportOutput{}, errExportTooLarge
		}
		return nil, out, nil
	}
	sc, ask := s.callScope(ctx, req)
	if ask != nil {
		return ask, ExportOutput{}, nil
	}
	p, err := sc.path("path", in.Path)
	if err != nil {
		return nil, ExportOutput{}, err
	}
	var rep tract.ExportReport
	err = sc.roots.WriteFile(p, 0o644, func(w io.Writer) error {
		var err error
		rep, err = repo.Export(ctx, w, o)
		return err
	})
	if err != nil {
		return nil, ExportOutput{}, fmt.Errorf("path: %w", err)
	}
	return nil, ExportOutput{ExportReport: rep, Path: p}, nil
}
