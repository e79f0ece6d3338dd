package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

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
	return s.committed(ctx, repo, s.tractName(in.Tract), c)
}

// committed is a new commit (an append or an edit) with the context's
// pressure after it, the commit naming its tract like every other result.
func (s *Server) committed(ctx context.Context, repo *tract.Repo, name string, c tract.Commit) (*mcp.CallToolResult, tract.CommitResult, error) {
	c.Tract = name
	// The server's compile cache makes this an incremental compile.
	p, err := repo.Pressure(ctx, name)
	if err != nil {
		return nil, tract.CommitResult{}, fmt.Errorf("committed %s, but the context's tokens are unknown: %w", c.Hash.Short(), err)
	}
	return nil, tract.CommitResult{Commit: c, Pressure: p}, nil
}

// addTractWriteTools registers appending to a tract and changing what its commits say: commit, annotate, edit.
func (s *Server) addTractWriteTools() {
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
		Name:        "tract_annotate",
		Title:       "Set a commit's priority",
		Description: "Record how this tract sees a commit (skip, normal, important, pinned), as `lineage tract annotate`; the newest annotation counts, older ones are kept.",
		Annotations: hints(false, false, false),
		InputSchema: withEnums[AnnotateInput](map[string][]string{"priority": strs(tract.Skip, tract.Normal, tract.Important, tract.Pinned)}),
	}, s.toolAnnotate)
	addTool(s, &mcp.Tool{
		Name:        "tract_edit",
		Title:       "Edit a commit",
		Description: "Replace the content of one of this tract's commits with an edit commit (history is kept), as `lineage tract edit --json` (restore: bring back an earlier version, as `--restore N`). Returns the edit commit with the context's pressure, as tract_commit does.",
		Annotations: hints(false, false, false),
	}, s.toolEdit)
	addTool(s, &mcp.Tool{
		Name:        "tract_edit_history",
		Title:       "A commit's versions",
		Description: "Every version of a commit's content in the current history, as `lineage tract edit REF --history --json`: the original (version 0), then its edits in the order compile applies them; current is the one compiled. tract_edit with restore brings one back.",
		Annotations: hints(true, false, true),
	}, s.toolEditHistory)
}

func (s *Server) toolEditHistory(ctx context.Context, _ *mcp.CallToolRequest, in RefInput) (*mcp.CallToolResult, tract.EditHistory, error) {
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.EditHistory{}, err
	}
	h, err := repo.EditHistory(ctx, s.tractName(in.Tract), in.Ref)
	return nil, h, err
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
	Text    string `json:"text,omitempty" jsonschema:"new text"`
	Restore *int   `json:"restore,omitempty" jsonschema:"instead of text: bring back version N of the commit's content (0: the original; see tract_edit_history)"`
	Message string `json:"message,omitempty" jsonschema:"commit message"`
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

func (s *Server) toolEdit(ctx context.Context, _ *mcp.CallToolRequest, in EditInput) (*mcp.CallToolResult, tract.CommitResult, error) {
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.CommitResult{}, err
	}
	name := s.tractName(in.Tract)
	var c tract.Commit
	switch {
	case in.Restore != nil && in.Text != "":
		return nil, tract.CommitResult{}, errors.New("restore: give text or restore, not both")
	case in.Restore != nil:
		c, err = repo.RestoreEdit(ctx, name, in.Ref, *in.Restore, in.Message)
	case strings.TrimSpace(in.Text) == "":
		return nil, tract.CommitResult{}, errors.New("text: give the new text (or restore)")
	default:
		c, err = repo.Edit(ctx, name, in.Ref, in.Text, in.Message)
	}
	if err != nil {
		return nil, tract.CommitResult{}, err
	}
	return s.committed(ctx, repo, name, c)
}
