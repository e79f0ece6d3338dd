package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolHandler is a typed tool handler. Returning a non-nil result without
// output (an input request) is allowed.
type toolHandler[In, Out any] func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error)

// addTool registers a tool whose structured result is Out marshaled the way
// the CLI prints --json (go-json-experiment: nil slices as [], omitzero,
// custom marshalers of the library types), so results mirror the CLI. The
// output schema is derived from Out unless the tool sets one.
func addTool[In, Out any](s *Server, t *mcp.Tool, h toolHandler[In, Out]) {
	if t.OutputSchema == nil {
		schema, err := jsonschema.ForType(reflect.TypeFor[Out](), &jsonschema.ForOptions{TypeSchemas: anySchemaTypes})
		if err != nil {
			panic(fmt.Sprintf("tool %s: output schema: %v", t.Name, err))
		}
		t.OutputSchema = objectSchema(schema)
	}
	mcp.AddTool(s.srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, json.RawMessage, error) {
		res, out, err := h(ctx, req, in)
		if err != nil {
			return nil, nil, err
		}
		if res != nil && res.InputRequests != nil {
			return res, nil, nil
		}
		b, err := marshalResult(out)
		if err != nil {
			return nil, nil, err
		}
		// The text the model reads: the handler's (a reminder or an
		// instruction block, as the CLI prints it), else the result's JSON
		// without HTML escaping. The SDK's own fallback would be
		// encoding/json's, with "<" written as \u003c.
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		if res.Content == nil {
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
		}
		return res, b, nil
	})
}

// textResult is a tool result whose text content is text (a reminder or an
// instruction block, exactly as the CLI prints it), or nil when text is
// empty (the result's JSON is the text then).
func textResult(text string) *mcp.CallToolResult {
	if text == "" {
		return nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// anySchemaTypes hold raw JSON: any value is valid. The schema says so in
// words rather than being empty: an empty schema is written as `true`, and
// the TypeScript SDK rejects the whole tool list over a boolean property
// schema.
var anySchemaTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[jsontext.Value](): {Description: "any JSON value"},
}

// marshalResult is the CLI's JSON of v, compact.
func marshalResult(v any) (json.RawMessage, error) {
	b, err := jsonv2.Marshal(v, jsonv2.Deterministic(true))
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return b, nil
}

// resultTokens is the size of v as the client receives it (its JSON).
func resultTokens(c TokenCounter, v any) int {
	b, err := marshalResult(v)
	if err != nil {
		return 0
	}
	return c.Count(string(b))
}

// objectSchema makes the schema of a pointer result ("type":
// ["null","object"]) plain "object": MCP requires an output schema of type
// object, and a tool never returns a null structured result.
func objectSchema(s *jsonschema.Schema) *jsonschema.Schema {
	if s.Type == "" && len(s.Types) == 2 && slices.Contains(s.Types, "null") && slices.Contains(s.Types, "object") {
		s.Types = nil
		s.Type = "object"
	}
	return s
}

// withEnums is the input schema inferred from In with the fixed value sets
// of some string properties (or of the items of string-array properties)
// as enums, so clients can offer and check them.
func withEnums[In any](enums map[string][]string) *jsonschema.Schema {
	s, err := jsonschema.ForType(reflect.TypeFor[In](), nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of %s: %v", reflect.TypeFor[In](), err))
	}
	for name, values := range enums {
		p := s.Properties[name]
		if p == nil {
			panic(fmt.Sprintf("input schema of %s: no property %q", reflect.TypeFor[In](), name))
		}
		if p.Items != nil {
			p = p.Items
		}
		for _, v := range values {
			p.Enum = append(p.Enum, v)
		}
	}
	return s
}

// strs converts a list of string-typed constants.
func strs[V ~string](vs ...V) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
