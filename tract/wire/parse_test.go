package wire

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

func TestParseOpenAIErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{}`, "not a JSON array of messages"},
		{`[{"content":"x"}]`, "message 1: invalid role: missing"},
		{`[{"role":"user","content":5}]`, "message 1: invalid content: want a string, null or an array of text parts"},
		{`[{"role":"user","content":[{"type":"image_url"}]}]`, `message 1: invalid content[0].type "image_url": only text parts can be imported`},
		{`[{"role":"tool","content":"x"}]`, "message 1: invalid tool-call-id"},
		{`[{"role":"user","content":"a","role":"x"}]`, `duplicate object member name "role"`},
	}
	for _, tt := range tests {
		_, err := ParseOpenAI([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.in, err, tt.want)
		}
	}
	reqs, err := ParseOpenAI([]byte(`[{"role":"developer","content":"d"},{"role":"assistant","content":"","tool_calls":[{"id":"1","type":"function","function":{"name":"f","arguments":""}}]}]`))
	if err != nil || reqs[0].Content.Type != tract.TypeInstruction || reqs[1].Content.ToolCalls[0].Arguments != "{}" {
		t.Fatalf("%+v %v", reqs, err)
	}
}

func FuzzParseOpenAI(f *testing.F) {
	f.Add([]byte(`[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"assistant","tool_calls":[{"id":"1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"1","content":"r"}]`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"role":"user","content":null,"name":"x"}]`))
	f.Add([]byte(`[{"role":"user","content":"a"}] [`))
	f.Add([]byte(`[{"role":"user","content":"a"},]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		reqs, err := ParseOpenAI(data)
		// It reads the array one message at a time, yet accepts exactly
		// the documents that unmarshal as an array.
		var all []jsontext.Value
		if uerr := json.Unmarshal(data, &all); uerr != nil && err == nil {
			t.Fatalf("accepted what is not a JSON array: %v", uerr)
		} else if err == nil && len(reqs) != len(all) {
			t.Fatalf("%d messages of %d", len(reqs), len(all))
		}
		if err != nil {
			return
		}
		for _, r := range reqs {
			if _, err := r.Content.Normalize(); err != nil {
				t.Fatalf("parsed content does not validate: %v", err)
			}
			if _, err := tract.NewBlob(r.Content); err != nil {
				t.Fatalf("parsed content cannot be stored: %v", err)
			}
		}
	})
}

func FuzzParseJSONL(f *testing.F) {
	f.Add([]byte("{\"role\":\"user\",\"content\":\"a\"}\n\n{\"role\":\"assistant\",\"content\":\"b\"}\n"))
	f.Add([]byte("{\"role\":\"user\",\"content\":\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		reqs, err := ParseJSONL(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") && !strings.Contains(err.Error(), "token too long") {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		for _, r := range reqs {
			if _, err := tract.NewBlob(r.Content); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestParseToolCalls(t *testing.T) {
	calls, err := ParseToolCalls([]byte(`[{"id":"a","name":"f","arguments":"{\"x\": 1}"},{"id":"b","name":"g","arguments":{"x": [1, 2]}},{"id":"c","name":"h"}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []tract.ToolCall{{ID: "a", Name: "f", Arguments: `{"x": 1}`}, {ID: "b", Name: "g", Arguments: `{"x":[1,2]}`}, {ID: "c", Name: "h"}}
	if !reflect.DeepEqual(calls, want) {
		t.Fatalf("got %+v, want %+v", calls, want)
	}
	if _, err := ParseToolCalls([]byte(`[{"id":"a","name":"f","arguments":[1]}]`)); err == nil || !strings.Contains(err.Error(), "tool call 1") {
		t.Fatalf("array arguments: got %v, want an error naming tool call 1", err)
	}
}
