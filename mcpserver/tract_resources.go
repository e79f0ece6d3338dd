package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource templates of the tract store.
const (
	CompiledTemplate = "lineage://tract/{tract}/compiled"
	CommitTemplate   = "lineage://tract/{tract}/commit/{hash}"
	// compiledOptionsTemplate is CompiledTemplate with compile options.
	compiledOptionsTemplate = CompiledTemplate + "{?budget,format,at}"
)

// compiledURI names the compiled context of a tract with options.
func compiledURI(name string, budget int, format, at string) string {
	u := "lineage://tract/" + url.PathEscape(name) + "/compiled"
	q := url.Values{}
	if budget > 0 {
		q.Set("budget", strconv.Itoa(budget))
	}
	if format != "" && format != "json" {
		q.Set("format", format)
	}
	if at != "" {
		q.Set("at", at)
	}
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

func (s *Server) addTractResources() {
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: CompiledTemplate,
		Name:        "tract-compiled",
		Title:       "Compiled context of a tract",
		Description: "The tract's compiled context at HEAD, as `lineage tract compile --json`.",
		MIMEType:    "application/json",
	}, coded(s.readCompiled))
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: compiledOptionsTemplate,
		Name:        "tract-compiled-with-options",
		Title:       "Compiled context of a tract, with options",
		Description: "As tract-compiled, with a token budget, a format (json, openai, anthropic, text) and a ref to compile at.",
		MIMEType:    "application/json",
	}, coded(s.readCompiled))
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: CommitTemplate,
		Name:        "tract-commit",
		Title:       "One commit with its content",
		Description: "A commit (hash, unique prefix or ref) with its content and annotations, as `lineage tract show --json`.",
		MIMEType:    "application/json",
	}, coded(s.readCommit))
}

// tractURI splits lineage://tract/NAME/REST into the tract name, REST and
// the query.
func tractURI(raw string) (name, rest string, q url.Values, ok bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "lineage" || u.Host != "tract" {
		return "", "", nil, false
	}
	p := strings.TrimPrefix(u.EscapedPath(), "/")
	i := strings.IndexByte(p, '/')
	if i <= 0 {
		return "", "", nil, false
	}
	name, err = url.PathUnescape(p[:i])
	if err != nil {
		return "", "", nil, false
	}
	rest, err = url.PathUnescape(p[i+1:])
	if err != nil {
		return "", "", nil, false
	}
	return name, rest, u.Query(), true
}

func (s *Server) readCompiled(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	name, rest, q, ok := tractURI(req.Params.URI)
	if !ok || rest != "compiled" {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	budget := 0
	if b := q.Get("budget"); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n < 0 {
			return nil, invalidParams("budget: want a whole number, got %q", b)
		}
		budget = n
	}
	format := wire.Format(q.Get("format"))
	if format == "" {
		format = wire.FormatJSON
	}
	if err := format.Validate(); err != nil {
		return nil, invalidParams("%v", err)
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, err
	}
	res, err := repo.Compile(ctx, name, tract.CompileOptions{Budget: budget, At: q.Get("at")})
	if err != nil {
		return nil, notFound(req.Params.URI, err)
	}
	r, err := wire.Render(res, format)
	if err != nil {
		return nil, err
	}
	text, mime := r.Text, "text/plain"
	if v, ok := r.JSON(); ok {
		text, mime, err = jsonText(v)
	}
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Text: text}}}, nil
}

func (s *Server) readCommit(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	name, rest, _, ok := tractURI(req.Params.URI)
	ref, found := strings.CutPrefix(rest, "commit/")
	if !ok || !found || ref == "" {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, err
	}
	shown, err := repo.Show(ctx, name, ref)
	if err != nil {
		return nil, notFound(req.Params.URI, err)
	}
	text, mime, err := jsonText(shown)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Text: text}}}, nil
}

// notFound turns the store's not-found into the protocol's.
func notFound(uri string, err error) error {
	if errors.Is(err, tract.ErrNotFound) {
		return mcp.ResourceNotFoundError(uri)
	}
	return err
}

func jsonText(v any) (string, string, error) {
	b, err := marshalResult(v)
	return string(b), "application/json", err
}

func (s *Server) addTractPrompts() {
	s.srv.AddPrompt(&mcp.Prompt{
		Name:        "compile-context",
		Title:       "Compiled tract context",
		Description: "The tract's compiled context as prompt messages (system and tool messages are given as user messages, labelled).",
		Arguments: []*mcp.PromptArgument{
			{Name: "tract", Description: "tract name (default: the server's)"},
			{Name: "budget", Description: "most tokens (default: no budget)"},
		},
	}, coded(s.promptCompile))
}

func (s *Server) promptCompile(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args := req.Params.Arguments
	budget := 0
	if b := strings.TrimSpace(args["budget"]); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n < 0 {
			return nil, invalidParams("budget: want a whole number, got %q", b)
		}
		budget = n
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, err
	}
	name := s.tractName(args["tract"])
	res, err := repo.Compile(ctx, name, tract.CompileOptions{Budget: budget})
	if err != nil {
		return nil, err
	}
	out := &mcp.GetPromptResult{
		Description: fmt.Sprintf("compiled context of tract %s at %s: %d messages, %d tokens", name, res.Head.Short(), len(res.Messages), res.Tokens),
		Messages:    []*mcp.PromptMessage{},
	}
	for _, m := range res.Messages {
		out.Messages = append(out.Messages, promptMessage(m))
	}
	return out, nil
}

// promptMessage maps a compiled message to a prompt message: prompts know
// only the user and assistant roles.
func promptMessage(m tract.Message) *mcp.PromptMessage {
	text := m.Content
	for _, c := range m.ToolCalls {
		text += fmt.Sprintf("\n[tool call %s] %s(%s)", c.ID, c.Name, c.Arguments)
	}
	switch m.Role {
	case tract.RoleAssistant:
		return &mcp.PromptMessage{Role: "assistant", Content: &mcp.TextContent{Text: strings.TrimPrefix(text, "\n")}}
	case tract.RoleSystem:
		text = "[system]\n" + text
	case tract.RoleTool:
		text = "[tool result " + m.ToolCallID + "]\n" + text
	}
	return &mcp.PromptMessage{Role: "user", Content: &mcp.TextContent{Text: text}}
}
