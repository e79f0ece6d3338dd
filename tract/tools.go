package tract

import (
	"fmt"

	"github.com/agentlineage/lineage/internal/canon"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// ToolDef is one tool a request offers the model: a function name, what it
// does and a JSON Schema of its arguments (an object schema).
type ToolDef struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  jsontext.Value `json:"parameters"`
}

// validToolName is what both the OpenAI and the Anthropic API accept:
// 1 to 64 of [a-zA-Z0-9_-].
func validToolName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// emptySchema is the parameters of a tool that takes no arguments.
const emptySchema = `{"properties":{},"type":"object"}`

// ParseTools reads a JSON array of tool definitions, each in one of three
// shapes: {"name","description","parameters"}, OpenAI's {"type":"function",
// "function":{…}} or Anthropic's {"name","description","input_schema"}. It
// returns them checked and with canonical parameters.
func ParseTools(data []byte) ([]ToolDef, error) {
	v := jsontext.Value(data)
	if !v.IsValid() {
		return nil, &ValidationError{Field: "tools", Value: clip(string(data)), Reason: "not valid JSON (want an array of tool definitions)"}
	}
	if v.Kind() != '[' {
		return nil, &ValidationError{Field: "tools", Value: clip(string(data)), Reason: "not a JSON array of tool definitions"}
	}
	var raw []struct {
		Type        string         `json:"type"`
		Function    *wireTool      `json:"function"`
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  jsontext.Value `json:"parameters"`
		InputSchema jsontext.Value `json:"input_schema"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, &ValidationError{Field: "tools", Reason: "not an array of tool definitions: " + err.Error()}
	}
	out := make([]ToolDef, len(raw))
	for i, r := range raw {
		d := ToolDef{Name: r.Name, Description: r.Description, Parameters: r.Parameters}
		if r.Function != nil {
			d = ToolDef{Name: r.Function.Name, Description: r.Function.Description, Parameters: r.Function.Parameters}
		} else if len(r.InputSchema) > 0 {
			if len(r.Parameters) > 0 {
				return nil, &ValidationError{Field: fmt.Sprintf("tools[%d]", i), Reason: "give parameters or input_schema, not both"}
			}
			d.Parameters = r.InputSchema
		}
		out[i] = d
	}
	if err := checkTools(TypeTools, out); err != nil {
		return nil, err
	}
	return out, nil
}

type wireTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  jsontext.Value `json:"parameters"`
}

// checkTools validates the tools of content of type t, giving tools without
// parameters the empty object schema and canonicalizing the others.
func checkTools(t Type, tools []ToolDef) error {
	if t != TypeTools {
		if len(tools) > 0 {
			return &ValidationError{Field: "tools", Reason: "only a tools commit carries tool definitions"}
		}
		return nil
	}
	if len(tools) == 0 {
		return &ValidationError{Field: "tools", Reason: "a tools commit needs at least one tool definition"}
	}
	seen := map[string]bool{}
	for i := range tools {
		d := &tools[i]
		field := fmt.Sprintf("tools[%d]", i)
		if !validToolName(d.Name) {
			return &ValidationError{Field: field + ".name", Value: d.Name, Reason: "want 1 to 64 of a-z A-Z 0-9 _ -"}
		}
		if seen[d.Name] {
			return &ValidationError{Field: field + ".name", Value: d.Name, Reason: "defined twice"}
		}
		seen[d.Name] = true
		if len(d.Parameters) == 0 || string(d.Parameters) == "null" {
			d.Parameters = jsontext.Value(emptySchema)
			continue
		}
		var schema struct {
			Type string `json:"type"`
		}
		if d.Parameters.Kind() != '{' || json.Unmarshal(d.Parameters, &schema) != nil || schema.Type != "object" {
			return &ValidationError{Field: field + ".parameters", Value: clip(string(d.Parameters)), Reason: `want a JSON Schema object with "type": "object"`}
		}
		p, err := canon.Canonicalize(d.Parameters)
		if err != nil {
			return &ValidationError{Field: field + ".parameters", Reason: err.Error()}
		}
		d.Parameters = p
	}
	return nil
}
