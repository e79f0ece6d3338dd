package compose

import (
	"errors"
	"fmt"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
)

// OpenAIRequest is a Chat Completions request body.
type OpenAIRequest struct {
	Model               string                `json:"model,omitempty"`
	MaxCompletionTokens int                   `json:"max_completion_tokens,omitzero"`
	Messages            []tract.OpenAIMessage `json:"messages"`
	Tools               []tract.OpenAITool    `json:"tools,omitempty"`
}

// AnthropicRequest is a Messages API request body.
type AnthropicRequest struct {
	Model     string                   `json:"model,omitempty"`
	MaxTokens int                      `json:"max_tokens,omitzero"`
	System    string                   `json:"system,omitempty"`
	Messages  []tract.AnthropicMessage `json:"messages"`
	Tools     []tract.AnthropicTool    `json:"tools,omitempty"`
}

// render puts the composed messages in o's format with tract's renderers
// (which repair what the APIs refuse: unpaired tool calls, role order). An
// OpenAI format of a request without any message is
// [tract.ErrEmptyContext].
func render(res *Result, o Options) (any, error) {
	msgs, tools := res.Messages, res.Tools
	tf := tract.Format(o.format())
	switch o.format() {
	case FormatAnthropicRequest:
		tf = tract.FormatAnthropic
	case FormatOpenAIRequest:
		tf = tract.FormatOpenAIRequest
	}
	out, err := tract.RenderIn(tract.Result{Tract: res.Tract, Messages: msgs, Tools: tools}, tf, o.Scratch.openAIScratch())
	if errors.Is(err, tract.ErrEmptyContext) {
		return nil, fmt.Errorf("context of %s: no AGENTS.md, no profile and no message: %w", fsx.LineSafe(res.Dir), tract.ErrEmptyContext)
	}
	if err != nil {
		return nil, err
	}
	switch o.format() {
	case FormatText:
		return out.Text, nil
	case FormatOpenAI:
		return out.OpenAI, nil
	case FormatAnthropic:
		return out.Anthropic, nil
	case FormatOpenAIRequest:
		return &OpenAIRequest{Model: o.Model, MaxCompletionTokens: o.MaxTokens, Messages: out.OpenAIRequest.Messages, Tools: out.OpenAIRequest.Tools}, nil
	}
	a := out.Anthropic
	return &AnthropicRequest{Model: o.Model, MaxTokens: o.MaxTokens, System: a.System, Messages: a.Messages, Tools: a.Tools}, nil
}
