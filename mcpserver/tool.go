package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
		schema, err := jsonschema.ForType(reflect.TypeFor[Out](), &jsonschema.ForOptions{TypeSchemas: anySchemaTypes()})
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

// addEncodedTool registers a tool as addTool does — the same input
// validation, result and listed tool — through the SDK's lower-level
// (*mcp.Server).AddTool: the structured result is Out encoded once
// (marshalResult: no HTML escaping) and handed to the SDK as raw JSON,
// without the typed API's output check (decoding the result into a map,
// validating and encoding it again), which costs more than the encoding
// for a large result. Tests validate the tool's real results against its
// output schema instead (TestEncodedToolResultsMatchTheirSchema).
func addEncodedTool[In, Out any](s *Server, t *mcp.Tool, h toolHandler[In, Out]) {
	in, ok := t.InputSchema.(*jsonschema.Schema)
	if !ok || t.OutputSchema == nil {
		panic(fmt.Sprintf("tool %s: an encoded tool declares its input schema (*jsonschema.Schema) and its output schema", t.Name))
	}
	resolved, err := in.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err))
	}
	memo := newArgsMemo[In]()
	s.srv.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, ok := memo.get(req.Params.Arguments)
		if !ok {
			if err := decodeArguments(req.Params.Arguments, resolved, &in); err != nil {
				return errorResult(err), nil
			}
			memo.put(req.Params.Arguments, in)
		}
		res, out, err := h(ctx, req, in)
		if err != nil {
			// As mcp.AddTool: a JSON-RPC error stays one; any other is
			// the tool's error result.
			if wire, ok := err.(*jsonrpc.Error); ok {
				return nil, wire
			}
			return errorResult(err), nil
		}
		if res != nil && res.InputRequests != nil {
			return res, nil
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		// A handler that encoded out already (to size its result) hands
		// the encoding over as the structured content.
		b, ok := res.StructuredContent.(json.RawMessage)
		if !ok {
			if b, err = marshalResult(out); err != nil {
				return nil, err
			}
			res.StructuredContent = b
		}
		if res.Content == nil {
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
		}
		return res, nil
	})
}

// argsMemo remembers the inputs that the last few distinct arguments of a
// tool decoded to: a client asking again with the same bytes (an agent
// compiling its context every turn) skips decoding, defaults and
// validation, whose outcome the same bytes and schema decide. Only for an
// In that holds no references (a copy shares nothing); errors are not
// remembered.
type argsMemo[In any] struct {
	mu  sync.Mutex
	on  bool
	ins map[string]In
}

const maxArgsMemo = 16

func newArgsMemo[In any]() *argsMemo[In] {
	return &argsMemo[In]{on: flat(reflect.TypeFor[In]())}
}

func (m *argsMemo[In]) get(raw json.RawMessage) (In, bool) {
	if !m.on {
		var zero In
		return zero, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	in, ok := m.ins[string(raw)]
	return in, ok
}

func (m *argsMemo[In]) put(raw json.RawMessage, in In) {
	if !m.on || len(raw) > 4096 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ins == nil || len(m.ins) >= maxArgsMemo {
		m.ins = map[string]In{}
	}
	m.ins[string(raw)] = in
}

// flat reports whether a value of t holds no pointers, slices, maps,
// channels, functions or interfaces (strings are immutable).
func flat(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if !flat(t.Field(i).Type) {
				return false
			}
		}
		return true
	case reflect.Array:
		return flat(t.Elem())
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return false
	}
	return true
}

// decodeArguments is what mcp.AddTool does with a call's arguments, with
// its error texts: they decode to an object (none: {}), get the schema's
// defaults, are validated against it, and decode into in.
func decodeArguments(args json.RawMessage, schema *jsonschema.Resolved, in any) error {
	m := map[string]any{}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &m); err != nil {
			return fmt.Errorf("validating \"arguments\": unmarshaling arguments: %w", err)
		}
	}
	var v any = m
	if err := schema.ApplyDefaults(&v); err != nil {
		return fmt.Errorf("validating \"arguments\": applying schema defaults:\n%w", err)
	}
	if err := schema.Validate(&v); err != nil {
		return fmt.Errorf("validating \"arguments\": %v", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("validating \"arguments\": marshalling with defaults: %v", err)
	}
	// Names match exactly (the SDK's decoder is case-sensitive too).
	return jsonv2.Unmarshal(b, in)
}

// errorResult is a tool's error result, as the SDK makes it.
func errorResult(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
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
// A []byte (pathBytes: the bytes of a name that is not valid UTF-8) is
// base64 text in JSON, as the CLI prints it.
// Made when a tool is added, not at init (lineage's start-up budget).
func anySchemaTypes() map[reflect.Type]*jsonschema.Schema {
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[jsontext.Value](): {Description: "any JSON value"},
		reflect.TypeFor[[]byte]():         {Types: []string{"null", "string"}, Description: "bytes, base64"},
	}
}

// marshalResult is the CLI's JSON of v, compact. A name that is not valid
// UTF-8 (a file or folder so named) shows U+FFFD where its bytes are, as
// the CLI's JSON does (the results that carry such paths keep the bytes
// beside them, as pathBytes): one such name never fails a whole call.
func marshalResult(v any) (json.RawMessage, error) {
	b, err := jsonv2.Marshal(v, jsonv2.Deterministic(true), jsontext.AllowInvalidUTF8(true))
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
