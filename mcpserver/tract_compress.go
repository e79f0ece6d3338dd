package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

// CompressPlanInput are the arguments of tract_compress_plan.
type CompressPlanInput struct {
	TractArg
	Budget   int    `json:"budget,omitempty" jsonschema:"the token budget to fit (default: the tract's stored budget)"`
	Encoding string `json:"encoding,omitempty" jsonschema:"token encoding: o200k_base (default) or cl100k_base"`
}

// CompressInput are the arguments of tract_compress.
type CompressInput struct {
	TractArg
	Range   string `json:"range" jsonschema:"FROM..TO: two refs of the current branch's first-parent history, oldest first, both included (a range from tract_compress_plan)"`
	Summary string `json:"summary" jsonschema:"the text that stands in for the range (you write it; lineage never calls a model)"`
	Role    string `json:"role,omitempty" jsonschema:"the summary's role: user (default) or assistant"`
	Message string `json:"message,omitempty" jsonschema:"commit message"`
	DryRun  bool   `json:"dryRun,omitempty" jsonschema:"report the tokens before and after; store nothing"`
}

// addTractCompressTools registers compression by reference.
func (s *Server) addTractCompressTools() {
	addTool(s, &mcp.Tool{
		Name:        "tract_compress_plan",
		Title:       "Plan a compression",
		Description: "Name the oldest range of the tract's history whose summary would bring the compiled context under the budget, with the messages to summarize and the most tokens the summary may use, as `lineage tract compress --plan --json`. Write the summary, then call tract_compress.",
		Annotations: hints(true, false, true),
	}, s.toolCompressPlan)
	addTool(s, &mcp.Tool{
		Name:        "tract_compress",
		Title:       "Compress a range by reference",
		Description: "Record a summary that stands in for the range FROM..TO when compiling, as `lineage tract compress --json`: pinned messages stay, the originals stay in the history (blame maps the summary to them) and annotating the summary skip brings them back.",
		Annotations: hints(false, false, false),
		InputSchema: withEnums[CompressInput](map[string][]string{"role": {tract.RoleUser, tract.RoleAssistant}}),
	}, s.toolCompress)
}

func (s *Server) toolCompressPlan(ctx context.Context, _ *mcp.CallToolRequest, in CompressPlanInput) (*mcp.CallToolResult, tract.CompressPlan, error) {
	o := tract.PlanOptions{Budget: in.Budget, Encoding: in.Encoding}
	if err := o.Validate(); err != nil {
		return nil, tract.CompressPlan{}, err
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.CompressPlan{}, err
	}
	p, err := repo.PlanCompress(ctx, s.tractName(in.Tract), o)
	return nil, p, err
}

func (s *Server) toolCompress(ctx context.Context, _ *mcp.CallToolRequest, in CompressInput) (*mcp.CallToolResult, tract.CompressResult, error) {
	o := tract.CompressOptions{Range: in.Range, Summary: in.Summary, Role: in.Role, Message: in.Message, DryRun: in.DryRun}
	if err := o.Validate(); err != nil {
		return nil, tract.CompressResult{}, err
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.CompressResult{}, err
	}
	res, err := repo.Compress(ctx, s.tractName(in.Tract), o)
	return nil, res, err
}
