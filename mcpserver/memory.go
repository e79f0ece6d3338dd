package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/memory"
)

// MemorySaveInput are the arguments of memory_save.
type MemorySaveInput struct {
	Text  string `json:"text" jsonschema:"what to remember: one fact, decision or preference, at most 4096 bytes"`
	Scope string `json:"scope,omitempty" jsonschema:"whose memory: project (default; this project only), user (every project) or agent (the slug's)"`
	Slug  string `json:"slug,omitempty" jsonschema:"the CLIA agent, for scope agent"`
}

// MemorySearchInput are the arguments of memory_search.
type MemorySearchInput struct {
	Query string `json:"query" jsonschema:"the words to search for: every one must occur"`
	Slug  string `json:"slug,omitempty" jsonschema:"a CLIA agent: its memories too"`
	Limit int    `json:"limit,omitempty" jsonschema:"the best N memories (default 10, at most 50)"`
}

// MemorySearchOutput is memory_search's answer, best first.
type MemorySearchOutput struct {
	Hits []memory.Hit `json:"hits"`
	// Truncated says the result cap left out lower-ranked hits.
	Truncated bool `json:"truncated,omitempty"`
}

// MemoryForgetInput are the arguments of memory_forget.
type MemoryForgetInput struct {
	ID   string `json:"id" jsonschema:"the memory's id (at least 4 hex digits), as memory_search or memory_save returned it"`
	Slug string `json:"slug,omitempty" jsonschema:"a CLIA agent, to forget one of its memories"`
}

// addMemoryTools registers the memory tools when the server may write the
// sessions store and knows its user.
func (s *Server) addMemoryTools() {
	addTool(s, &mcp.Tool{
		Name:  "memory_save",
		Title: "Remember something for later sessions",
		Description: "Save a memory, as `lineage memory add --json`: a fact, decision or preference worth knowing in a later session of any harness " +
			"(Claude Code, Codex CLI, Gemini CLI). lineage's hook delivers it at the next session starts of this project (scope project), " +
			"of every project (scope user) or of the agent (scope agent, with slug), once per session, naming this harness and session. " +
			"Each save is a commit of its scope's tract in the user's sessions store.",
		Annotations: hints(false, false, false),
		InputSchema: withEnums[MemorySaveInput](map[string][]string{"scope": strs(memory.Kinds...)}),
	}, s.toolMemorySave)
	addTool(s, &mcp.Tool{
		Name:  "memory_search",
		Title: "Search the memories of this user, project and agent",
		Description: "Search the memories lineage keeps for this user, this project and the agent (slug), through the store's full-text index, " +
			"as `lineage memory list` shows them: every word of the query must occur; newest first. Each hit names its id, scope and provenance.",
		Annotations: hints(true, false, true),
	}, s.toolMemorySearch)
	addTool(s, &mcp.Tool{
		Name:  "memory_forget",
		Title: "Forget a memory",
		Description: "Forget one memory of this user, project or agent, as `lineage memory forget ID --json`: it is no longer listed or delivered. " +
			"The commit stays in its tract (`lineage tract annotate ID normal --tract TRACT` brings it back).",
		Annotations: hints(false, true, false),
	}, s.toolMemoryForget)
}

// memoryWhere is whose memories a call sees: the server's user, the
// project of the call's working directory, the slug.
func (s *Server) memoryWhere(ctx context.Context, req *mcp.CallToolRequest, slug string) (memory.Where, *mcp.CallToolResult, error) {
	sc, ask := s.callScope(ctx, req)
	if ask != nil {
		return memory.Where{}, ask, nil
	}
	w := memory.Where{User: s.opts.MemoryUser, Project: memory.ProjectOf(s.cfg.Root, sc.work, s.opts.Home), Slug: slug, Cwd: sc.work}
	if slug != "" {
		if _, err := w.Scope(memory.Agent); err != nil {
			return memory.Where{}, nil, err
		}
	}
	return w, nil, nil
}

// memorySession is the harness session a call comes from: the session of
// the live hook state this MCP session shares ("" when none).
func (s *Server) memorySession(req *mcp.CallToolRequest, h, cwd string) string {
	p := s.hookState(req.Session, cwd)
	if p == "" {
		return ""
	}
	id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), h+"-"), ".json")
	if strings.HasPrefix(id, "sha256~") {
		return ""
	}
	return id
}

func (s *Server) toolMemorySave(ctx context.Context, req *mcp.CallToolRequest, in MemorySaveInput) (*mcp.CallToolResult, memory.Memory, error) {
	var out memory.Memory
	kind := memory.Project
	if in.Scope != "" {
		var err error
		if kind, err = memory.ParseKind(in.Scope); err != nil {
			return nil, out, err
		}
	}
	w, ask, err := s.memoryWhere(ctx, req, in.Slug)
	if ask != nil || err != nil {
		return ask, out, err
	}
	if _, err := w.Scope(kind); err != nil {
		return nil, out, err
	}
	if err := memory.ValidateText(strings.TrimSpace(in.Text)); err != nil {
		return nil, out, err
	}
	repo, done, err := s.opts.OpenSessionsWrite(ctx)
	if err != nil {
		return nil, out, err
	}
	if repo == nil {
		return nil, out, fmt.Errorf("no sessions store to keep memories in")
	}
	defer done()
	h := ""
	if req.Session != nil {
		h = clientHarness(req.Session)
	}
	o := memory.AddOptions{Where: w, Kind: kind, Text: in.Text, Harness: h}
	if h != "" {
		o.Session = s.memorySession(req, h, w.Cwd)
	}
	out, err = memory.Add(ctx, repo, o)
	return nil, out, err
}

func (s *Server) toolMemorySearch(ctx context.Context, req *mcp.CallToolRequest, in MemorySearchInput) (*mcp.CallToolResult, MemorySearchOutput, error) {
	out := MemorySearchOutput{Hits: []memory.Hit{}}
	limit := in.Limit
	if limit < 0 || limit > 50 {
		return nil, out, fmt.Errorf("limit: want 0 to 50, got %d", limit)
	}
	if limit == 0 {
		limit = 10
	}
	w, ask, err := s.memoryWhere(ctx, req, in.Slug)
	if ask != nil || err != nil {
		return ask, out, err
	}
	repo, done, err := s.opts.OpenSessions(ctx)
	if err != nil {
		return nil, out, err
	}
	if repo != nil {
		defer done()
	}
	hits, err := memory.Search(ctx, repo, w, in.Query, limit)
	if err != nil {
		return nil, out, err
	}
	out.Hits = hits
	for len(out.Hits) > 0 && resultTokens(s.opts.Tokens, out) > s.opts.MaxResultTokens {
		out.Hits, out.Truncated = out.Hits[:len(out.Hits)-1], true
	}
	return nil, out, nil
}

func (s *Server) toolMemoryForget(ctx context.Context, req *mcp.CallToolRequest, in MemoryForgetInput) (*mcp.CallToolResult, memory.Memory, error) {
	var out memory.Memory
	w, ask, err := s.memoryWhere(ctx, req, in.Slug)
	if ask != nil || err != nil {
		return ask, out, err
	}
	repo, done, err := s.opts.OpenSessionsWrite(ctx)
	if err != nil {
		return nil, out, err
	}
	if repo != nil {
		defer done()
	}
	out, err = memory.Forget(ctx, repo, w, in.ID)
	return nil, out, err
}
