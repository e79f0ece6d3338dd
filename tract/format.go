package tract

import (
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Output formats of a compiled context.
const (
	FormatOpenAI    = "openai"
	FormatAnthropic = "anthropic"
	FormatText      = "text"
)

// OpenAIMessage is a chat message as the OpenAI API takes it.
type OpenAIMessage struct {
	Role       string           `json:"role"`
	Content    *string          `json:"content"`
	Name       string           `json:"name,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
	ToolCalls  []OpenAIToolCall `json:"tool_calls,omitempty"`
}

// OpenAIToolCall is an assistant's function call.
type OpenAIToolCall struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction names a function and its JSON arguments.
type OpenAIFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// OpenAI renders messages for the OpenAI chat API.
func OpenAI(msgs []Message) []OpenAIMessage {
	out := make([]OpenAIMessage, 0, len(msgs))
	for _, m := range msgs {
		text := m.Content
		om := OpenAIMessage{Role: m.Role, Content: &text, Name: m.Name, ToolCallID: m.ToolCallID}
		if len(m.ToolCalls) > 0 && text == "" {
			om.Content = nil
		}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, OpenAIToolCall{ID: tc.ID, Type: "function", Function: OpenAIFunction{Name: tc.Name, Arguments: tc.Arguments}})
		}
		out = append(out, om)
	}
	return out
}

// Anthropic is a request body's system and messages for the Anthropic
// Messages API.
type Anthropic struct {
	System   string             `json:"system"`
	Messages []AnthropicMessage `json:"messages"`
}

// AnthropicMessage is one turn; roles alternate user and assistant.
type AnthropicMessage struct {
	Role    string           `json:"role"`
	Content []AnthropicBlock `json:"content"`
}

// AnthropicBlock is a content block: text, tool_use or tool_result.
type AnthropicBlock struct {
	Type      string         `json:"type"`
	Text      string         `json:"text,omitempty"`
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name,omitempty"`
	Input     jsontext.Value `json:"input,omitzero"`
	ToolUseID string         `json:"tool_use_id,omitempty"`
	Content   string         `json:"content,omitempty"`
}

// ToAnthropic renders messages for the Anthropic API: system text gathered
// into System, tool calls as tool_use blocks, tool results as tool_result
// blocks in a user turn, and consecutive turns of one role joined so roles
// alternate.
func ToAnthropic(msgs []Message) Anthropic {
	var system []string
	out := Anthropic{Messages: []AnthropicMessage{}}
	for _, m := range msgs {
		role := m.Role
		var blocks []AnthropicBlock
		switch {
		case role == RoleSystem:
			system = append(system, m.Content)
			continue
		case role == RoleTool:
			role = RoleUser
			blocks = append(blocks, AnthropicBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content})
		default:
			if m.Content != "" {
				blocks = append(blocks, AnthropicBlock{Type: "text", Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, AnthropicBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: jsontext.Value(tc.Arguments)})
			}
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(out.Messages); n > 0 && out.Messages[n-1].Role == role {
			last := &out.Messages[n-1]
			last.Content = append(last.Content, blocks...)
			continue
		}
		out.Messages = append(out.Messages, AnthropicMessage{Role: role, Content: blocks})
	}
	out.System = strings.Join(system, "\n\n")
	return out
}

// Text renders messages for reading: "role: content" blocks separated by
// blank lines, tool calls and results marked.
func Text(msgs []Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteString("\n")
		}
		label := m.Role
		if m.Name != "" {
			label += " (" + m.Name + ")"
		}
		if m.ToolCallID != "" {
			label += " [" + m.ToolCallID + "]"
		}
		if m.Content == "" {
			fmt.Fprintf(&b, "%s:\n", label)
		} else {
			fmt.Fprintf(&b, "%s: %s\n", label, m.Content)
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "  -> %s %s(%s)\n", tc.ID, tc.Name, tc.Arguments)
		}
	}
	return b.String()
}
