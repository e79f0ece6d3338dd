package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

// ConfigInput are the arguments of tract_config: without value it reads
// the settings, with one it stores it.
type ConfigInput struct {
	TractArg
	Key   string `json:"key,omitempty" jsonschema:"the setting to store: budget (the tokens tract_status measures against and tract_compress_plan plans for) or warn-at (the share of the budget at which tract_commit reports warn with a compression plan, default 0.85)"`
	Value string `json:"value,omitempty" jsonschema:"the value to store: a positive number of tokens for budget, a share above 0 and at most 1 for warn-at, or none to remove it; without it the settings are read"`
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
