package mcpserver

import (
	"context"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

// TractOpener opens the tract store. The server calls it on the first tract
// tool call (so `lineage tract init` may run after the server started) and
// keeps the repo it returns.
type TractOpener func(ctx context.Context) (*tract.Repo, error)

// tractRepo opens the store once; a failed open is retried next time.
type tractRepo struct {
	open TractOpener
	mu   sync.Mutex
	repo *tract.Repo
}

func (t *tractRepo) get(ctx context.Context) (*tract.Repo, error) {
	if t.open == nil {
		return nil, errors.New("no tract store configured")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.repo != nil {
		return t.repo, nil
	}
	r, err := t.open(ctx)
	if err != nil {
		return nil, err
	}
	// A server compiles on every turn: a compile checkpoint coming due
	// (the whole view written, every 64 commits) is written after the
	// answer, not before it. The opener's owner waits for it (Repo.Wait)
	// before closing the store.
	r.BackgroundCheckpoints()
	t.repo = r
	return r, nil
}

// tractName is the tract a call names, else the server's default.
func (s *Server) tractName(name string) string {
	if name != "" {
		return name
	}
	return s.opts.Tract
}

// TractArg is the optional tract every tract tool takes.
type TractArg struct {
	Tract string `json:"tract,omitempty" jsonschema:"tract name (default: the server's --tract, else main)"`
}

// hints builds honest tool annotations; nothing here reaches outside the
// store and the working tree.
func hints(readOnly, destructive, idempotent bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: readOnly, DestructiveHint: ptr(destructive), IdempotentHint: idempotent, OpenWorldHint: ptr(false)}
}

// addTractTools registers the tract tools, family by family (each in the
// file of its family, named as the CLI's: tract_write.go, tract_history.go, …).
func (s *Server) addTractTools() {
	s.addTractWriteTools()
	s.addTractCompileTools()
	s.addTractHistoryTools()
	s.addTractRefTools()
	s.addTractSpawnTools()
	s.addTractExportTools()
	s.addTractStatusTools()
	s.addTractCompressTools()
	s.addTractStoreTools()
}

// addTractStatusTools registers where a tract stands and its settings: status, config.
func (s *Server) addTractStatusTools() {
	addTool(s, &mcp.Tool{
		Name:        "tract_status",
		Title:       "Where a tract stands",
		Description: "The tract's branch and head, its compiled tokens against the stored budget (pressure is their ratio; warn says it is at or above warn-at, with the plan to compress; over says it exceeds the budget: see tract_compress_plan), spawned children with work not merged back, and how far every other branch is ahead of and behind HEAD, as `lineage tract status --json`.",
		Annotations: hints(true, false, true),
	}, s.toolStatus)
	addTool(s, &mcp.Tool{
		Name:        "tract_config",
		Title:       "Read or store a tract's settings",
		Description: "Without value, the tract's settings; with key and value, store one (value none removes it), as `lineage tract config [budget [N|none] | warn-at [RATIO|none] | prune [POLICY|none]] --json` (prune: the compile-time prune policy, e.g. `tool-results older-than=3 keep-last=2 larger-than=2000 failed-turns`). Storing replaces the previous value.",
		Annotations: hints(false, true, true),
		InputSchema: withEnums[ConfigInput](map[string][]string{"key": tract.ConfigKeys}),
	}, s.toolConfig)
}
