package mcpserver

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
)

// Every tool registered — by any file of this package, now or later — has
// an output schema of type exactly "object": the official TypeScript SDK
// rejects the whole tool list otherwise.
func TestEveryOutputSchemaIsTypeObject(t *testing.T) {
	dir := project(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir(), store: toolsTestStore(t)}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) < 19 {
		t.Fatalf("only %d tools listed", len(res.Tools))
	}
	for _, tool := range res.Tools {
		raw, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Type json.RawMessage `json:"type"`
		}
		if err := json.Unmarshal(raw, &s); err != nil || string(s.Type) != `"object"` {
			t.Errorf("%s: output schema type %s, want exactly \"object\": %s", tool.Name, s.Type, raw)
		}
		in, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range booleanSubschemas(t, raw, "outputSchema") {
			t.Errorf("%s: %s is a boolean schema", tool.Name, b)
		}
		for _, b := range booleanSubschemas(t, in, "inputSchema") {
			t.Errorf("%s: %s is a boolean schema", tool.Name, b)
		}
	}
}

// booleanSubschemas lists the places in a schema where a property or an
// items schema is `true` or `false` instead of an object. JSON Schema allows
// it, but the TypeScript SDK's tool-list validation rejects a boolean
// property schema, and with it every tool (it did, for `meta`: schema true).
func booleanSubschemas(t *testing.T, raw []byte, at string) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(v any, at string)
	walk = func(v any, at string) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if props, ok := m["properties"].(map[string]any); ok {
			for name, p := range props {
				if _, isBool := p.(bool); isBool {
					out = append(out, at+"/properties/"+name)
				}
				walk(p, at+"/properties/"+name)
			}
		}
		if items, ok := m["items"]; ok {
			if _, isBool := items.(bool); isBool {
				out = append(out, at+"/items")
			}
			walk(items, at+"/items")
		}
		for _, k := range []string{"additionalProperties", "$defs"} {
			if sub, ok := m[k].(map[string]any); ok {
				walk(sub, at+"/"+k)
			}
		}
	}
	walk(v, at)
	sort.Strings(out)
	return out
}

// Fixed value sets are enums in the input schemas.
func TestFixedValuesAreEnums(t *testing.T) {
	dir := project(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir(), store: toolsTestStore(t)}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"tract_compile":  {"format": `["json","openai","openai-request","anthropic","text"]`},
		"tract_commit":   {"type": `["instruction","message","tool_call","tool_result","reasoning","artifact","metadata","tools"]`, "priority": `["pinned","skip"]`, "role": `["system","user","assistant","tool"]`},
		"tract_spawn":    {"mode": `["reference","snapshot","empty"]`},
		"tract_annotate": {"priority": `["skip","normal","important","pinned"]`},
		"tract_config":   {"key": `["budget","warn-at","prune"]`},
		"tract_compress": {"role": `["user","assistant"]`},
		"agents_profile": {"kind": `["agent","agenda","agency"]`},
		"agents_journal": {"writeScope": `["submodule","workspace","local"]`},
	}
	for _, tool := range res.Tools {
		props, ok := want[tool.Name]
		if !ok {
			continue
		}
		raw, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties map[string]struct {
				Enum json.RawMessage `json:"enum"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		for prop, enum := range props {
			if got := string(s.Properties[prop].Enum); got != enum {
				t.Errorf("%s.%s enum = %s, want %s", tool.Name, prop, got, enum)
			}
		}
		delete(want, tool.Name)
	}
	if len(want) > 0 {
		t.Errorf("tools not listed: %v", want)
	}
}
