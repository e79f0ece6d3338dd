package mcpserver

import (
	"context"
	"errors"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
	Tract         string               `json:"tract"`
	Head          tract.Hash           `json:"head"`
	Encoding      string               `json:"encoding"`
	Tokens        int                  `json:"tokens"`
	Budget        *int                 `json:"budget"`
	Format        string               `json:"format" jsonschema:"json, openai, openai-request, anthropic or text: the field that holds the messages"`
	Messages      []tract.Message      `json:"messages,omitzero" jsonschema:"the compiled messages with provenance (format json)"`
	OpenAI        []wire.OpenAIMessage `json:"openai,omitzero" jsonschema:"the messages in OpenAI chat form (format openai)"`
	OpenAIRequest *wire.OpenAIRequest  `json:"openaiRequest,omitzero" jsonschema:"messages and tools of an OpenAI chat request (format openai-request)"`
	Anthropic     *wire.Anthropic      `json:"anthropic,omitzero" jsonschema:"system, messages and tools in Anthropic form (format anthropic)"`
	Tools         []tract.ToolDef      `json:"tools,omitzero" jsonschema:"the latest tools commit's definitions (format json)"`
	Text          string               `json:"text,omitempty" jsonschema:"the context as plain text (format text)"`
	Dropped       []tract.Dropped      `json:"dropped"`
	// Resource is set when the context was too long to inline: read it
	// there instead.
	Resource string `json:"resource,omitempty" jsonschema:"set when the context was too long to inline: read this resource for it"`
}

func (s *Server) toolCompile(ctx context.Context, _ *mcp.CallToolRequest, in CompileInput) (*mcp.CallToolResult, CompileOutput, error) {
	format := wire.Format(in.Format)
	if format == "" {
		format = wire.FormatJSON
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
	r, err := wire.Render(res, format)
	if err != nil {
		return nil, CompileOutput{}, err
	}
	out := compileOutput(res, r)
	if resultTokens(s.opts.Tokens, out) > s.opts.MaxResultTokens {
		out = compileOutput(res, wire.Rendered{Format: format})
		out.Messages = nil
		out.Resource = compiledURI(name, in.Budget, string(format), in.At)
	}
	return nil, out, nil
}

// compileOutput is res with its rendering r: the messages stay only in the
// field of r's format.
func compileOutput(res tract.Result, r wire.Rendered) CompileOutput {
	out := CompileOutput{Tract: res.Tract, Head: res.Head, Encoding: res.Encoding, Tokens: res.Tokens, Budget: res.Budget,
		Format: string(r.Format), OpenAI: r.OpenAI, Anthropic: r.Anthropic, Text: r.Text, Dropped: res.Dropped}
	if r.OpenAIRequest != nil {
		out.OpenAIRequest = &r.OpenAIRequest.OpenAIRequest
	}
	if out.Dropped == nil {
		out.Dropped = []tract.Dropped{}
	}
	if r.Format == wire.FormatJSON {
		out.Tools = res.Tools
		out.Messages = res.Messages
		if out.Messages == nil {
			out.Messages = []tract.Message{}
		}
	}
	return out
}

// addTractCompileTools registers the compiled context: compile.
func (s *Server) addTractCompileTools() {
	addTool(s, &mcp.Tool{
		Name:        "tract_compile",
		Title:       "Compile a tract's context",
		Description: "The message list an LLM receives for the tract's HEAD (or `at` a ref), under an optional token budget, as `lineage tract compile --json`; lists what the budget dropped.",
		Annotations: hints(true, false, true),
		InputSchema: withEnums[CompileInput](map[string][]string{
			"format": strs(wire.FormatJSON, wire.FormatOpenAI, wire.FormatOpenAIRequest, wire.FormatAnthropic, wire.FormatText)}),
	}, s.toolCompile)
}
