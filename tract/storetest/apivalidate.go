package storetest

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The validators below are written from the APIs' documented rules for the
// messages of a request, not from lineage's renderer: they take the JSON a
// user would send.

var apiIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

type openAIMessage struct {
	Role       string          `json:"role"`
	Content    *string         `json:"content"`
	Name       *string         `json:"name"`
	ToolCallID *string         `json:"tool_call_id"`
	ToolCalls  []openAIToolUse `json:"tool_calls"`
}

type openAIToolUse struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string         `json:"name"`
		Arguments jsontext.Value `json:"arguments"`
	} `json:"function"`
}

// ValidateOpenAI checks a Chat Completions messages array: at least one
// message; known roles; string content (null only for an assistant message
// with tool calls); names, function names and ids of [A-Za-z0-9_-]{1,64};
// each call id used once in the request; function arguments a string;
// every assistant message with tool calls followed at once by one tool
// message per call id, and no tool message anywhere else.
func ValidateOpenAI(data []byte) error {
	var msgs []openAIMessage
	if err := json.Unmarshal(data, &msgs, json.RejectUnknownMembers(true)); err != nil {
		return fmt.Errorf("not an array of chat messages: %w", err)
	}
	if len(msgs) == 0 {
		return fmt.Errorf("messages: an empty array (at least one message is required)")
	}
	var open map[string]bool // call ids still owed a tool message
	ids := map[string]bool{} // every call id of the request
	for i, m := range msgs {
		at := fmt.Sprintf("messages[%d] (%s)", i, m.Role)
		if m.Name != nil && !apiIDPattern.MatchString(*m.Name) {
			return fmt.Errorf("%s: name %q", at, *m.Name)
		}
		if m.Role != "tool" && len(open) > 0 {
			return fmt.Errorf("%s: tool calls %v not answered before the next message", at, keys(open))
		}
		switch m.Role {
		case "system", "developer", "user":
			if m.Content == nil || m.ToolCallID != nil || m.ToolCalls != nil {
				return fmt.Errorf("%s: wants string content and no tool fields", at)
			}
		case "assistant":
			if m.Content == nil && len(m.ToolCalls) == 0 {
				return fmt.Errorf("%s: null content without tool calls", at)
			}
			if m.ToolCallID != nil {
				return fmt.Errorf("%s: tool_call_id on an assistant message", at)
			}
			open = map[string]bool{}
			for _, tc := range m.ToolCalls {
				if !apiIDPattern.MatchString(tc.ID) || tc.Type != "function" || !toolNamePattern.MatchString(tc.Function.Name) || tc.Function.Arguments.Kind() != '"' {
					return fmt.Errorf("%s: bad tool call %+v", at, tc)
				}
				if ids[tc.ID] {
					return fmt.Errorf("%s: tool call id %s used twice in the request", at, tc.ID)
				}
				ids[tc.ID] = true
				open[tc.ID] = true
			}
		case "tool":
			if m.Content == nil || m.ToolCallID == nil {
				return fmt.Errorf("%s: wants content and tool_call_id", at)
			}
			if !open[*m.ToolCallID] {
				return fmt.Errorf("%s: tool_call_id %q answers no call of the assistant message before it", at, *m.ToolCallID)
			}
			delete(open, *m.ToolCallID)
		default:
			return fmt.Errorf("%s: unknown role", at)
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("tool calls %v never answered", keys(open))
	}
	return nil
}

type anthropicBody struct {
	System string `json:"system"`
	Tools  []struct {
		Name        string         `json:"name"`
		Description *string        `json:"description"`
		InputSchema jsontext.Value `json:"input_schema"`
	} `json:"tools"`
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Type      string         `json:"type"`
			Text      *string        `json:"text"`
			ID        string         `json:"id"`
			Name      string         `json:"name"`
			Input     jsontext.Value `json:"input"`
			ToolUseID string         `json:"tool_use_id"`
			Content   jsontext.Value `json:"content"`
		} `json:"content"`
	} `json:"messages"`
}

// ValidateAnthropic checks a Messages API body's system and messages: at
// least one message, the first from the user, roles alternating; content
// a non-empty list of blocks; text blocks not blank; tool_use ids of
// [A-Za-z0-9_-]{1,64}, unique in the request, with a name of the same
// pattern and an object input, each answered by a
// tool_result in the next (user) turn, where tool results come first and
// answer only the turn before; a final assistant turn not ending in white
// space.
func ValidateAnthropic(data []byte) error {
	var body anthropicBody
	if err := json.Unmarshal(data, &body, json.RejectUnknownMembers(true)); err != nil {
		return fmt.Errorf("not a messages body: %w", err)
	}
	if len(body.Messages) == 0 {
		return fmt.Errorf("messages: at least one message is required")
	}
	names := map[string]bool{}
	for i, tool := range body.Tools {
		if err := checkToolDef(fmt.Sprintf("tools[%d]", i), tool.Name, tool.InputSchema, true, names); err != nil {
			return err
		}
	}
	var calls map[string]bool // tool_use ids of the previous assistant turn
	ids := map[string]bool{}  // every tool_use id of the request
	for i, m := range body.Messages {
		at := fmt.Sprintf("messages[%d] (%s)", i, m.Role)
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if m.Role != want {
			return fmt.Errorf("%s: want role %s (the first turn is the user's, then they alternate)", at, want)
		}
		if len(m.Content) == 0 {
			return fmt.Errorf("%s: empty content", at)
		}
		results, uses := map[string]bool{}, map[string]bool{}
		pastResults := false
		for j, b := range m.Content {
			bat := fmt.Sprintf("%s.content[%d] (%s)", at, j, b.Type)
			switch b.Type {
			case "text":
				if b.Text == nil || strings.TrimSpace(*b.Text) == "" {
					return fmt.Errorf("%s: blank text", bat)
				}
				pastResults = true
			case "tool_use":
				if m.Role != "assistant" || !apiIDPattern.MatchString(b.ID) || !toolNamePattern.MatchString(b.Name) || b.Input.Kind() != '{' {
					return fmt.Errorf("%s: bad tool_use", bat)
				}
				if ids[b.ID] {
					return fmt.Errorf("%s: tool_use id %s used twice in the request", bat, b.ID)
				}
				ids[b.ID] = true
				uses[b.ID] = true
			case "tool_result":
				if m.Role != "user" || pastResults {
					return fmt.Errorf("%s: tool results come first in a user turn", bat)
				}
				if !calls[b.ToolUseID] {
					return fmt.Errorf("%s: tool_use_id %q answers no tool_use of the turn before", bat, b.ToolUseID)
				}
				results[b.ToolUseID] = true
			default:
				return fmt.Errorf("%s: unknown block type", bat)
			}
		}
		if m.Role == "user" {
			for id := range calls {
				if !results[id] {
					return fmt.Errorf("%s: tool_use %s of the turn before has no tool_result", at, id)
				}
			}
		}
		calls = uses
		if i == len(body.Messages)-1 && m.Role == "assistant" {
			if len(uses) > 0 {
				return fmt.Errorf("%s: final turn's tool_use has no result", at)
			}
			if last := m.Content[len(m.Content)-1]; last.Text != nil && strings.TrimRightFunc(*last.Text, unicode.IsSpace) != *last.Text {
				return fmt.Errorf("%s: final assistant turn ends in white space", at)
			}
		}
	}
	return nil
}

func keys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }

// ValidateOpenAIRequest checks a Chat Completions request's messages (as
// ValidateOpenAI) and tools: each {"type":"function","function":{"name",
// "description"?, "parameters"?}} with a name of [a-zA-Z0-9_-]{1,64}, names
// unique, parameters a JSON Schema object.
func ValidateOpenAIRequest(data []byte) error {
	var req struct {
		Messages jsontext.Value `json:"messages"`
		Tools    []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string         `json:"name"`
				Description *string        `json:"description"`
				Parameters  jsontext.Value `json:"parameters"`
				Strict      *bool          `json:"strict"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &req, json.RejectUnknownMembers(true)); err != nil {
		return fmt.Errorf("not a chat request: %w", err)
	}
	if err := ValidateOpenAI(req.Messages); err != nil {
		return err
	}
	names := map[string]bool{}
	for i, tool := range req.Tools {
		at := fmt.Sprintf("tools[%d]", i)
		if tool.Type != "function" {
			return fmt.Errorf("%s: type %q, want function", at, tool.Type)
		}
		if err := checkToolDef(at, tool.Function.Name, tool.Function.Parameters, false, names); err != nil {
			return err
		}
	}
	return nil
}

// checkToolDef checks a tool's name and argument schema (an object schema;
// required when schemaRequired).
func checkToolDef(at, name string, schema jsontext.Value, schemaRequired bool, seen map[string]bool) error {
	if !toolNamePattern.MatchString(name) {
		return fmt.Errorf("%s: name %q", at, name)
	}
	if seen[name] {
		return fmt.Errorf("%s: name %q given twice", at, name)
	}
	seen[name] = true
	if len(schema) == 0 {
		if schemaRequired {
			return fmt.Errorf("%s: no input schema", at)
		}
		return nil
	}
	var obj struct {
		Type string `json:"type"`
	}
	if schema.Kind() != '{' || json.Unmarshal(schema, &obj) != nil || obj.Type != "object" {
		return fmt.Errorf("%s: schema %s is not an object schema", at, schema)
	}
	return nil
}

var toolNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
