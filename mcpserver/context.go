package mcpserver

import (
	"context"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/skills"
)

// ContextInput are the arguments of context_compile (as lineage context).
type ContextInput struct {
	Target    string `json:"target,omitempty" jsonschema:"file or directory whose AGENTS.md chain is loaded (absolute, or relative to the working directory); default: the working directory"`
	Slug      string `json:"slug,omitempty" jsonschema:"agent whose merged profile joins the system part (default: none)"`
	Tract     string `json:"tract,omitempty" jsonschema:"tract whose history fills the messages (default: none)"`
	At        string `json:"at,omitempty" jsonschema:"compile the tract as of this ref"`
	Budget    int    `json:"budget,omitempty" jsonschema:"most tokens the whole request may use (0: no budget); the pinned system part is never cut"`
	Format    string `json:"format,omitempty" jsonschema:"openai (default), anthropic, openai-request, anthropic-request or text: the shape of request"`
	Encoding  string `json:"encoding,omitempty" jsonschema:"token encoding: o200k_base (default) or cl100k_base"`
	Model     string `json:"model,omitempty" jsonschema:"model name the request formats carry"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"reply token limit the request formats carry"`
}

// maxDroppedListed is how many of the messages the budget dropped a
// result lists (the newest); the counts cover them all. A 10k-message tract
// under a small budget drops thousands, and listing each would make the
// result heavier than the request.
const maxDroppedListed = 50

func (s *Server) addContextTools() {
	schema, err := jsonschema.ForType(reflect.TypeFor[compose.Result](), &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[any](): {Description: "the request in the format asked for: a JSON array or object, or the text"},
	}})
	if err != nil {
		panic(fmt.Sprintf("tool context_compile: output schema: %v", err))
	}
	addTool(s, &mcp.Tool{
		Name:  "context_compile",
		Title: "Compile one model request",
		Description: "The whole context of one model request, as `lineage context --json`: the AGENTS.md chain of the target's " +
			"directory, the merged profile of an agent (slug) and the pinned system messages of a tract first, then the " +
			"tract's history under what the budget leaves; every block with its source (files, profile fields, commits) " +
			"and everything left out with the reason (of the messages the budget dropped, the newest 50 and the totals).",
		Annotations:  hints(true, false, true),
		InputSchema:  withEnums[ContextInput](map[string][]string{"format": strs(compose.Formats()...)}),
		OutputSchema: objectSchema(schema),
	}, s.toolContext)
}

func (s *Server) toolContext(ctx context.Context, req *mcp.CallToolRequest, in ContextInput) (*mcp.CallToolResult, compose.Result, error) {
	sc, ask := s.callScope(ctx, req)
	if ask != nil {
		return ask, compose.Result{}, nil
	}
	target, err := sc.path("target", in.Target)
	if err != nil {
		return nil, compose.Result{}, err
	}
	o := compose.Options{
		Target:       target,
		Instructions: s.instructionOptions(sc.work, sc),
		Slug:         in.Slug,
		AgentsCheck:  func(ch *agents.Chain) error { return checkChain(sc, ch) },
		Tract:        in.Tract,
		At:           in.At,
		Budget:       in.Budget,
		Encoding:     in.Encoding,
		Format:       compose.Format(in.Format),
		Model:        in.Model,
		MaxTokens:    in.MaxTokens,
	}
	if !s.opts.Skills.Disabled {
		o.Skills = &skills.Options{User: s.opts.Skills.User, Extra: s.opts.Skills.Extra, CacheDir: s.opts.Skills.CacheDir}
		o.SkillsOmit = func(sk skills.Skill) bool { return sk.Scope == skills.ScopeProject && sc.roots.Check(sk.Path) != nil }
	}
	if in.Tract != "" {
		if o.Repo, err = s.tracts.get(ctx); err != nil {
			return nil, compose.Result{}, err
		}
	}
	res, err := compose.Compile(ctx, o)
	if err != nil {
		return nil, compose.Result{}, err
	}
	return nil, res.NewestDropped(maxDroppedListed), nil
}
