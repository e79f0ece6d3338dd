package wire

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/agentlineage/lineage/tract"
	"github.com/go-json-experiment/json/jsontext"
)

// Anthropic is a request body's system and messages for the Anthropic
// Messages API.
type Anthropic struct {
	System   string             `json:"system"`
	Messages []AnthropicMessage `json:"messages"`
	// Tools are the definitions of the latest tools commit, if any.
	Tools []AnthropicTool `json:"tools,omitempty"`
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

// ContinuationText is the user turn ToAnthropic puts before a context whose
// first turn is the assistant's: the Messages API wants a user turn first.
const ContinuationText = "(context continues)"

// ToAnthropic renders messages for the Anthropic Messages API so that the
// request is valid as it stands:
//   - system text is gathered into System, joined by blank lines;
//   - consecutive messages of one role are merged into one turn, so roles
//     alternate user, assistant, user…;
//   - a context that starts with the assistant, or has no message besides
//     system text, gets a first user turn holding only ContinuationText;
//   - tool calls and results are paired first as for OpenAI (apiMessages);
//   - tool calls are tool_use blocks of the assistant turn (arguments ""
//     becoming {}), tool results tool_result blocks of the following user
//     turn, placed before that turn's text;
//   - a tool_use without its tool_result in the next turn, or a tool_result
//     without its tool_use in the turn before (one side skipped by an
//     annotation, say), becomes a plain text block that says so; a tool_use
//     in the final turn stays (its result is still to come);
//   - empty or blank text is left out (the API refuses empty text blocks),
//     and trailing white space of a final assistant turn is trimmed.
func ToAnthropic(msgs []tract.Message) Anthropic {
	msgs = apiMessages(msgs)
	var system []string
	out := Anthropic{Messages: []AnthropicMessage{}}
	for _, m := range msgs {
		if m.Role == tract.RoleSystem {
			system = append(system, m.Content)
			continue
		}
		role, blocks := anthropicBlocks(m)
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
	pairTools(out.Messages)
	for i := range out.Messages {
		if out.Messages[i].Role == tract.RoleUser {
			toolResultsFirst(out.Messages[i].Content)
		}
	}
	if len(out.Messages) == 0 || out.Messages[0].Role == tract.RoleAssistant {
		first := AnthropicMessage{Role: tract.RoleUser, Content: []AnthropicBlock{{Type: "text", Text: ContinuationText}}}
		out.Messages = append([]AnthropicMessage{first}, out.Messages...)
	}
	trimFinalAssistant(out.Messages)
	return out
}

// anthropicBlocks is the turn role and content blocks of one non-system
// message.
func anthropicBlocks(m tract.Message) (string, []AnthropicBlock) {
	if m.Role == tract.RoleTool {
		return tract.RoleUser, []AnthropicBlock{{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content}}
	}
	var blocks []AnthropicBlock
	if strings.TrimSpace(m.Content) != "" {
		blocks = append(blocks, AnthropicBlock{Type: "text", Text: m.Content})
	}
	for _, tc := range m.ToolCalls {
		blocks = append(blocks, AnthropicBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: toolInput(tc.Arguments)})
	}
	return m.Role, blocks
}

// pairTools turns a tool_use block whose result is not in the next turn
// (when there is a next turn), and a tool_result block whose call is not in
// the turn before, into text.
func pairTools(turns []AnthropicMessage) {
	for i := range turns {
		blocks := turns[i].Content
		switch {
		case turns[i].Role == tract.RoleAssistant && i+1 < len(turns):
			results := toolIDs(turns[i+1], "tool_result")
			for j, b := range blocks {
				if b.Type == "tool_use" && !results[b.ID] {
					blocks[j] = AnthropicBlock{Type: "text", Text: fmt.Sprintf("(tool call %s: %s %s, no result)", b.ID, b.Name, b.Input)}
				}
			}
		case turns[i].Role == tract.RoleUser:
			var calls map[string]bool
			if i > 0 {
				calls = toolIDs(turns[i-1], "tool_use")
			}
			for j, b := range blocks {
				if b.Type == "tool_result" && !calls[b.ToolUseID] {
					blocks[j] = AnthropicBlock{Type: "text", Text: fmt.Sprintf("(result of tool call %s) %s", b.ToolUseID, b.Content)}
				}
			}
		}
	}
}

// toolIDs is the set of tool call ids of a turn's blocks of one type.
func toolIDs(turn AnthropicMessage, typ string) map[string]bool {
	set := map[string]bool{}
	for _, b := range turn.Content {
		switch {
		case b.Type == typ && typ == "tool_use":
			set[b.ID] = true
		case b.Type == typ && typ == "tool_result":
			set[b.ToolUseID] = true
		}
	}
	return set
}

// toolResultsFirst moves a user turn's tool_result blocks before its other
// blocks, keeping the order within each kind: the API wants them first.
func toolResultsFirst(blocks []AnthropicBlock) {
	slices.SortStableFunc(blocks, func(a, b AnthropicBlock) int {
		return cmp.Compare(rankToolResult(a), rankToolResult(b))
	})
}

func rankToolResult(b AnthropicBlock) int {
	if b.Type == "tool_result" {
		return 0
	}
	return 1
}

// trimFinalAssistant trims trailing white space from a final assistant
// turn's last text block (the API refuses it there; blank blocks were left
// out already, so something remains).
func trimFinalAssistant(turns []AnthropicMessage) {
	n := len(turns)
	if n == 0 || turns[n-1].Role != tract.RoleAssistant {
		return
	}
	blocks := turns[n-1].Content
	last := &blocks[len(blocks)-1]
	if last.Type == "text" {
		last.Text = strings.TrimRightFunc(last.Text, unicode.IsSpace)
	}
}
