package wire

import (
	"github.com/agentlineage/lineage/tract"
	"github.com/go-json-experiment/json/jsontext"
)

// OpenAITool is a tool definition as the OpenAI chat API takes it.
type OpenAITool struct {
	Type     string             `json:"type"`
	Function OpenAIToolFunction `json:"function"`
}

// OpenAIToolFunction is the function an OpenAITool offers.
type OpenAIToolFunction struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  jsontext.Value `json:"parameters"`
}

// AnthropicTool is a tool definition as the Anthropic Messages API takes it.
type AnthropicTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	InputSchema jsontext.Value `json:"input_schema"`
}

// OpenAIRequest is the body of an OpenAI chat request: messages and tools.
type OpenAIRequest struct {
	Messages []OpenAIMessage `json:"messages"`
	Tools    []OpenAITool    `json:"tools,omitempty"`
}

// OpenAIBody is a whole Chat Completions request body: the model and the
// answer's token cap when given (a model request's, RenderRequest), then
// the request.
type OpenAIBody struct {
	Model               string `json:"model,omitempty"`
	MaxCompletionTokens int    `json:"max_completion_tokens,omitzero"`
	OpenAIRequest       `json:",inline"`
}

// AnthropicRequest is a whole Messages API request body: unlike the
// anthropic format (Anthropic), its system is left out when empty.
type AnthropicRequest struct {
	Model     string             `json:"model,omitempty"`
	MaxTokens int                `json:"max_tokens,omitzero"`
	System    string             `json:"system,omitempty"`
	Messages  []AnthropicMessage `json:"messages"`
	Tools     []AnthropicTool    `json:"tools,omitempty"`
}

func openAITools(tools []tract.ToolDef) []OpenAITool {
	var out []OpenAITool
	for _, d := range tools {
		out = append(out, OpenAITool{Type: "function", Function: OpenAIToolFunction{Name: d.Name, Description: d.Description, Parameters: d.Parameters}})
	}
	return out
}

func anthropicTools(tools []tract.ToolDef) []AnthropicTool {
	var out []AnthropicTool
	for _, d := range tools {
		out = append(out, AnthropicTool{Name: d.Name, Description: d.Description, InputSchema: d.Parameters})
	}
	return out
}
