package wire

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/agentlineage/lineage/internal/jsonerr"
	"github.com/agentlineage/lineage/tract"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Import formats.
const (
	ImportOpenAI = "openai"
	ImportJSONL  = "jsonl"
)

// importMessage is an OpenAI-style chat message as found in files.
type importMessage struct {
	Role       string         `json:"role"`
	Content    jsontext.Value `json:"content"`
	Name       string         `json:"name"`
	ToolCallID string         `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string         `json:"name"`
			Arguments jsontext.Value `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// ParseToolCalls reads a JSON array of tool calls {"id","name","arguments"},
// whose arguments are a JSON string (as the OpenAI API sends them) or a
// JSON object (as Anthropic's input and hand-written calls are).
func ParseToolCalls(data []byte) ([]tract.ToolCall, error) {
	var raw []struct {
		ID        string         `json:"id"`
		Name      string         `json:"name"`
		Arguments jsontext.Value `json:"arguments"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf(`want a JSON array of {"id","name","arguments"}: %w`, jsonerr.Describe(err))
	}
	out := make([]tract.ToolCall, len(raw))
	for i, r := range raw {
		args, err := argumentsText(r.Arguments)
		if err != nil {
			return nil, fmt.Errorf("tool call %d: %w", i+1, err)
		}
		out[i] = tract.ToolCall{ID: r.ID, Name: r.Name, Arguments: args}
	}
	return out, nil
}

// argumentsText is a tool call's arguments as text: a JSON string's value,
// or an object's JSON.
func argumentsText(v jsontext.Value) (string, error) {
	switch {
	case len(v) == 0 || string(v) == "null":
		return "", nil
	case v.Kind() == '"':
		var s string
		err := json.Unmarshal(v, &s)
		return s, err
	case v.Kind() == '{':
		v = v.Clone()
		if err := v.Compact(); err != nil {
			return "", err
		}
		return string(v), nil
	}
	return "", &tract.ValidationError{Field: "arguments", Value: string(v), Reason: "want a JSON string or object"}
}

// ParseOpenAI reads a JSON array of OpenAI chat messages into commit
// requests: system messages become instructions, assistant messages with
// tool_calls become tool calls, tool messages tool results. Errors name the
// message (1-based) and what is wrong with it.
func ParseOpenAI(data []byte) ([]tract.CommitRequest, error) {
	return collect(OpenAIMessages(data))
}

// OpenAIMessages is ParseOpenAI one message at a time, for an import that
// streams (Repo.ImportSeq): it holds one message besides data, stops at
// the first error and starts again when ranged over again.
func OpenAIMessages(data []byte) iter.Seq2[tract.CommitRequest, error] {
	return func(yield func(tract.CommitRequest, error) bool) {
		dec := jsontext.NewDecoder(bytes.NewReader(data))
		fail := func(err error) {
			// A document that is not an array of JSON values is described
			// as a whole, as an unmarshal of the array describes it.
			if uerr := json.Unmarshal(data, new([]jsontext.Value)); uerr != nil {
				err = uerr
			}
			yield(tract.CommitRequest{}, fmt.Errorf("not a JSON array of messages: %w", jsonerr.Describe(err)))
		}
		tok, err := dec.ReadToken()
		if err != nil || tok.Kind() != '[' {
			fail(err)
			return
		}
		for i := 1; dec.PeekKind() != ']'; i++ {
			raw, err := dec.ReadValue()
			if err != nil {
				fail(err)
				return
			}
			if !yieldMessage(yield, raw, "message", i) {
				return
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			fail(err)
			return
		}
		if _, err := dec.ReadToken(); err != io.EOF {
			fail(err)
		}
	}
}

// yieldMessage parses one message and yields it, or the error naming it
// (kind and place: "message 3", "line 7"); it reports whether to go on.
func yieldMessage(yield func(tract.CommitRequest, error) bool, raw []byte, kind string, n int) bool {
	req, err := parseImportMessage(raw)
	if err != nil {
		yield(tract.CommitRequest{}, fmt.Errorf("%s %d: %w", kind, n, err))
		return false
	}
	return yield(req, nil)
}

// ParseJSONL reads one OpenAI chat message per line; blank lines are
// skipped. Errors name the line.
func ParseJSONL(data []byte) ([]tract.CommitRequest, error) {
	return collect(JSONLMessages(data))
}

// JSONLMessages is ParseJSONL one message at a time (see OpenAIMessages).
func JSONLMessages(data []byte) iter.Seq2[tract.CommitRequest, error] {
	return func(yield func(tract.CommitRequest, error) bool) {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
		for line := 1; sc.Scan(); line++ {
			text := bytes.TrimSpace(sc.Bytes())
			if len(text) == 0 {
				continue
			}
			if !yieldMessage(yield, text, "line", line) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(tract.CommitRequest{}, err)
		}
	}
}

// collect is every request of seq, or its error.
func collect(seq iter.Seq2[tract.CommitRequest, error]) ([]tract.CommitRequest, error) {
	var out []tract.CommitRequest
	for req, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, req)
	}
	return out, nil
}

func parseImportMessage(raw []byte) (tract.CommitRequest, error) {
	var m importMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return tract.CommitRequest{}, jsonerr.Describe(err)
	}
	text, err := contentText(m.Content)
	if err != nil {
		return tract.CommitRequest{}, err
	}
	c := tract.Content{Role: m.Role, Name: m.Name, Text: text, ToolCallID: m.ToolCallID}
	switch {
	case m.Role == "":
		return tract.CommitRequest{}, &tract.ValidationError{Field: "role", Reason: "missing"}
	case m.Role == tract.RoleSystem || m.Role == "developer":
		c.Type, c.Role = tract.TypeInstruction, tract.RoleSystem
	case m.Role == tract.RoleTool:
		c.Type = tract.TypeToolResult
	case len(m.ToolCalls) > 0:
		c.Type = tract.TypeToolCall
		for i, tc := range m.ToolCalls {
			args, err := argumentsText(tc.Function.Arguments)
			if err != nil {
				return tract.CommitRequest{}, fmt.Errorf("tool_calls[%d]: %w", i, err)
			}
			c.ToolCalls = append(c.ToolCalls, tract.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
		}
	default:
		c.Type = tract.TypeMessage
	}
	c, err = c.Normalize()
	return tract.CommitRequest{Content: c}, err
}

// contentText accepts a string, null, or an array of parts whose text parts
// are joined.
func contentText(v jsontext.Value) (string, error) {
	if len(v) == 0 || string(v) == "null" {
		return "", nil
	}
	switch v.Kind() {
	case '"':
		var s string
		err := json.Unmarshal(v, &s)
		return s, err
	case '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(v, &parts); err != nil {
			return "", fmt.Errorf("content: %w", jsonerr.Describe(err))
		}
		var texts []string
		for i, p := range parts {
			if p.Type != "text" {
				return "", &tract.ValidationError{Field: fmt.Sprintf("content[%d].type", i), Value: p.Type, Reason: "only text parts can be imported"}
			}
			texts = append(texts, p.Text)
		}
		return strings.Join(texts, "\n"), nil
	}
	return "", &tract.ValidationError{Field: "content", Reason: "want a string, null or an array of text parts"}
}
