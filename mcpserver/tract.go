package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
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

// CommitInput are the arguments of tract_commit (as tract commit).
type CommitInput struct {
	TractArg
	Type       string           `json:"type" jsonschema:"content type: instruction, message, tool_call, tool_result, reasoning, artifact, metadata or tools"`
	Role       string           `json:"role,omitempty" jsonschema:"role (default: the type's, user for messages)"`
	Text       string           `json:"text,omitempty" jsonschema:"content text (none for tools)"`
	Name       string           `json:"name,omitempty" jsonschema:"name (of an instruction: only the latest of a name is compiled)"`
	ToolCallID string           `json:"toolCallId,omitempty" jsonschema:"the tool call a tool_result answers"`
	ToolCalls  []tract.ToolCall `json:"toolCalls,omitempty" jsonschema:"tool calls of a tool_call"`
	Message    string           `json:"message,omitempty" jsonschema:"commit message"`
	Priority   string           `json:"priority,omitempty" jsonschema:"pinned or skip: annotate the new commit (as --pin / --skip)"`
	Meta       map[string]any   `json:"meta,omitempty" jsonschema:"metadata kept with the commit: hashed, searchable, never compiled"`
	Tools      []map[string]any `json:"tools,omitempty" jsonschema:"tool definitions of a tools commit: {name, description, parameters} (or the OpenAI or Anthropic shape)"`
}

// CompileInput are the arguments of tract_compile.
type CompileInput struct {
	TractArg
	Budget   int    `json:"budget,omitempty" jsonschema:"most tokens the context may use (0: no budget)"`
	Format   string `json:"format,omitempty" jsonschema:"json (default: the full record), openai, openai-request (messages and tools), anthropic or text"`
	At       string `json:"at,omitempty" jsonschema:"compile as of this ref (time travel)"`
	Encoding string `json:"encoding,omitempty" jsonschema:"token encoding: o200k_base (default) or cl100k_base"`
}

// CompileOutput is tract compile --json with the messages in exactly one
// place: messages for the json format, else openai, anthropic or text (a
// model reading the result must never see an empty messages list beside
// the real ones). When the context is too long to inline, none of them is
// set and resource names where to read it.
type CompileOutput struct {
	Tract         string                `json:"tract"`
	Head          tract.Hash            `json:"head"`
	Encoding      string                `json:"encoding"`
	Tokens        int                   `json:"tokens"`
	Budget        *int                  `json:"budget"`
	Format        string                `json:"format" jsonschema:"json, openai, openai-request, anthropic or text: the field that holds the messages"`
	Messages      []tract.Message       `json:"messages,omitzero" jsonschema:"the compiled messages with provenance (format json)"`
	OpenAI        []tract.OpenAIMessage `json:"openai,omitzero" jsonschema:"the messages in OpenAI chat form (format openai)"`
	OpenAIRequest *tract.OpenAIRequest  `json:"openaiRequest,omitzero" jsonschema:"messages and tools of an OpenAI chat request (format openai-request)"`
	Anthropic     *tract.Anthropic      `json:"anthropic,omitzero" jsonschema:"system, messages and tools in Anthropic form (format anthropic)"`
	Tools         []tract.ToolDef       `json:"tools,omitzero" jsonschema:"the latest tools commit's definitions (format json)"`
	Text          string                `json:"text,omitempty" jsonschema:"the context as plain text (format text)"`
	Dropped       []tract.Dropped       `json:"dropped"`
	// Resource is set when the context was too long to inline: read it
	// there instead.
	Resource string `json:"resource,omitempty" jsonschema:"set when the context was too long to inline: read this resource for it"`
}

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

func (s *Server) addTractTools() {
	addTool(s, &mcp.Tool{
		Name:        "tract_commit",
		Title:       "Append to a tract",
		Description: "Append one piece of context (a message, an instruction, a tool call or result…) to the tract's current branch, as `lineage tract commit --json`. Returns the commit with the context's tokens, the stored budget and the pressure (tokens/budget); at or above warn-at, warn is true and plan names the range to summarize (write the summary, then tract_compress). Concurrent writers never lose a commit.",
		Annotations: hints(false, false, false),
		InputSchema: withEnums[CommitInput](map[string][]string{
			"type": strs(tract.Types...), "priority": strs(tract.Pinned, tract.Skip),
			"role": {tract.RoleSystem, tract.RoleUser, tract.RoleAssistant, tract.RoleTool}}),
	}, s.toolCommit)
	addTool(s, &mcp.Tool{
		Name:        "tract_compile",
		Title:       "Compile a tract's context",
		Description: "The message list an LLM receives for the tract's HEAD (or `at` a ref), under an optional token budget, as `lineage tract compile --json`; lists what the budget dropped.",
		Annotations: hints(true, false, true),
		InputSchema: withEnums[CompileInput](map[string][]string{
			"format": strs(tract.FormatJSON, tract.FormatOpenAI, tract.FormatOpenAIRequest, tract.FormatAnthropic, tract.FormatText)}),
	}, s.toolCompile)
	addTool(s, &mcp.Tool{
		Name:        "tract_log",
		Title:       "Tract history",
		Description: "A page of the tract's history, newest first, as `lineage tract log --json`; type, role and tag keep only matching commits; pass nextCursor back as cursor for the next page.",
		Annotations: hints(true, false, true),
	}, s.toolLog)
	s.addTractRefTools()
	s.addTractAgentTools()
	s.addTractFindTools()
	s.addTractCompressTools()
	s.addTractStatusTools()
}

// hints builds honest tool annotations; nothing here reaches outside the
// store and the working tree.
func hints(readOnly, destructive, idempotent bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: readOnly, DestructiveHint: ptr(destructive), IdempotentHint: idempotent, OpenWorldHint: ptr(false)}
}

func (s *Server) toolCommit(ctx context.Context, _ *mcp.CallToolRequest, in CommitInput) (*mcp.CallToolResult, tract.CommitResult, error) {
	if strings.TrimSpace(in.Text) == "" && len(in.ToolCalls) == 0 && len(in.Tools) == 0 {
		return nil, tract.CommitResult{}, errors.New("text: must not be empty or blank (nothing to commit)")
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.CommitResult{}, err
	}
	req := tract.CommitRequest{
		Content: tract.Content{Type: tract.Type(in.Type), Role: in.Role, Name: in.Name, Text: in.Text, ToolCallID: in.ToolCallID, ToolCalls: in.ToolCalls},
		Message: in.Message,
	}
	if req.Priority, err = tract.ParseMark(in.Priority); err != nil {
		return nil, tract.CommitResult{}, err
	}
	if in.Meta != nil {
		if req.Meta, err = jsonv2.Marshal(in.Meta); err != nil {
			return nil, tract.CommitResult{}, err
		}
	}
	if in.Tools != nil {
		raw, err := jsonv2.Marshal(in.Tools)
		if err != nil {
			return nil, tract.CommitResult{}, err
		}
		if req.Content.Tools, err = tract.ParseTools(raw); err != nil {
			return nil, tract.CommitResult{}, err
		}
	}
	c, err := repo.Commit(ctx, s.tractName(in.Tract), req)
	if err != nil {
		return nil, tract.CommitResult{}, err
	}
	// The server's compile cache makes this an incremental compile.
	p, err := repo.Pressure(ctx, s.tractName(in.Tract))
	if err != nil {
		return nil, tract.CommitResult{}, fmt.Errorf("committed %s, but the context's tokens are unknown: %w", c.Hash.Short(), err)
	}
	return nil, tract.CommitResult{Commit: c, Pressure: p}, nil
}

func (s *Server) toolCompile(ctx context.Context, _ *mcp.CallToolRequest, in CompileInput) (*mcp.CallToolResult, CompileOutput, error) {
	format := tract.Format(in.Format)
	if format == "" {
		format = tract.FormatJSON
	}
	o := tract.CompileOptions{Budget: in.Budget, At: in.At, Encoding: in.Encoding}
	if err := errors.Join(format.Validate(), o.Validate()); err != nil {
		return nil, CompileOutput{}, err
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, CompileOutput{}, err
	}
	name := s.tractName(in.Tract)
	res, err := repo.Compile(ctx, name, o)
	if err != nil {
		return nil, CompileOutput{}, err
	}
	r, err := tract.Render(res, format)
	if err != nil {
		return nil, CompileOutput{}, err
	}
	out := compileOutput(res, r)
	if resultTokens(s.opts.Tokens, out) > s.opts.MaxResultTokens {
		out = compileOutput(res, tract.Rendered{Format: format})
		out.Messages = nil
		out.Resource = compiledURI(name, in.Budget, string(format), in.At)
	}
	return nil, out, nil
}

// compileOutput is res with its rendering r: the messages stay only in the
// field of r's format.
func compileOutput(res tract.Result, r tract.Rendered) CompileOutput {
	out := CompileOutput{Tract: res.Tract, Head: res.Head, Encoding: res.Encoding, Tokens: res.Tokens, Budget: res.Budget,
		Format: string(r.Format), OpenAI: r.OpenAI, OpenAIRequest: r.OpenAIRequest, Anthropic: r.Anthropic, Text: r.Text, Dropped: res.Dropped}
	if out.Dropped == nil {
		out.Dropped = []tract.Dropped{}
	}
	if r.Format == tract.FormatJSON {
		out.Tools = res.Tools
		out.Messages = res.Messages
		if out.Messages == nil {
			out.Messages = []tract.Message{}
		}
	}
	return out
}

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
