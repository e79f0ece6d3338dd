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
