package wire

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/go-json-experiment/json"
	"pgregory.net/rapid"
)

func TestToAnthropic(t *testing.T) {
	call := func(id string) []tract.ToolCall { return []tract.ToolCall{{ID: id, Name: "f", Arguments: `{"x":1}`}} }
	tests := []struct {
		name string
		msgs []tract.Message
		want string
	}{
		{"starts with the assistant",
			[]tract.Message{{Role: "system", Content: "s"}, {Role: "assistant", Content: "hello"}, {Role: "user", Content: "hi"}},
			`{"system":"s","messages":[{"role":"user","content":[{"type":"text","text":"(context continues)"}]},` +
				`{"role":"assistant","content":[{"type":"text","text":"hello"}]},{"role":"user","content":[{"type":"text","text":"hi"}]}]}`},
		{"only the assistant",
			[]tract.Message{{Role: "assistant", Content: "a"}, {Role: "assistant", Content: "b"}},
			`{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"(context continues)"}]},` +
				`{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`},
		{"tool results before text in a merged user turn",
			[]tract.Message{{Role: "user", Content: "go"}, {Role: "assistant", ToolCalls: call("t1")},
				{Role: "user", Content: "and hurry"}, {Role: "tool", ToolCallID: "t1", Content: "42"}},
			`{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"go"}]},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{"x":1}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"42"},{"type":"text","text":"and hurry"}]}]}`},
		{"tool result without its call",
			[]tract.Message{{Role: "tool", ToolCallID: "t9", Content: "late"}, {Role: "user", Content: "so?"}},
			`{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"(result of tool call t9) late"},{"type":"text","text":"so?"}]}]}`},
		{"tool call without its result",
			[]tract.Message{{Role: "user", Content: "go"}, {Role: "assistant", Content: "trying", ToolCalls: call("t1")}, {Role: "user", Content: "never mind"}},
			`{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"go"}]},` +
				`{"role":"assistant","content":[{"type":"text","text":"trying\n(tool call t1: f {\"x\":1}, no result)"}]},` +
				`{"role":"user","content":[{"type":"text","text":"never mind"}]}]}`},
		{"pending tool call at the end becomes text: the API wants its result",
			[]tract.Message{{Role: "user", Content: "go"}, {Role: "assistant", ToolCalls: []tract.ToolCall{{ID: "t1", Name: "now"}}}},
			`{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"go"}]},` +
				`{"role":"assistant","content":[{"type":"text","text":"(tool call t1: now , no result)"}]}]}`},
		{"result moved before a user turn committed after the call, ids mapped",
			[]tract.Message{{Role: "assistant", ToolCalls: []tract.ToolCall{{ID: "call.1", Name: "f", Arguments: "[1]"}}}, {Role: "user", Content: "hurry"},
				{Role: "tool", ToolCallID: "call.1", Content: "42"}},
			`{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"(context continues)"}]},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"` + APIID("call.1") + `","name":"f","input":{"arguments":"[1]"}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + APIID("call.1") + `","content":"42"},{"type":"text","text":"hurry"}]}]}`},
		{"blank text left out, final assistant trimmed",
			[]tract.Message{{Role: "user", Content: "q"}, {Role: "user", Content: " \n"}, {Role: "assistant", Content: "a \n"}},
			`{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"text","text":"a"}]}]}`},
		{"nothing but system",
			[]tract.Message{{Role: "system", Content: "a"}, {Role: "system", Content: "b"}},
			`{"system":"a\n\nb","messages":[{"role":"user","content":[{"type":"text","text":"(context continues)"}]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(ToAnthropic(tt.msgs))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
		})
	}
}

// TestToAnthropicValid: whatever the messages, the body keeps the Messages
// API's rules.
func TestToAnthropicValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 12).Draw(t, "n")
		var msgs []tract.Message
		for range n {
			role := rapid.SampledFrom([]string{"system", "user", "assistant", "tool"}).Draw(t, "role")
			m := tract.Message{Role: role, Content: rapid.SampledFrom([]string{"", " ", "x", "y \n"}).Draw(t, "text")}
			id := fmt.Sprint("t", rapid.IntRange(0, 3).Draw(t, "id"))
			switch {
			case role == "tool":
				m.ToolCallID = id
			case role == "assistant" && rapid.Bool().Draw(t, "calls"):
				m.ToolCalls = []tract.ToolCall{{ID: id, Name: "f", Arguments: "{}"}}
			}
			msgs = append(msgs, m)
		}
		checkAnthropic(t, ToAnthropic(msgs))
	})
}

func checkAnthropic(t *rapid.T, a Anthropic) {
	if _, err := json.Marshal(a); err != nil {
		t.Fatal(err)
	}
	turns := a.Messages
	for i, turn := range turns {
		want := []string{"user", "assistant"}[i%2]
		if turn.Role != want {
			t.Fatalf("turn %d is %s, want %s", i, turn.Role, want)
		}
		if len(turn.Content) == 0 {
			t.Fatalf("turn %d is empty", i)
		}
		seenOther := false
		for _, b := range turn.Content {
			switch b.Type {
			case "text":
				if strings.TrimSpace(b.Text) == "" {
					t.Fatalf("turn %d has a blank text block", i)
				}
				seenOther = true
			case "tool_use":
				if turn.Role != "assistant" || len(b.Input) == 0 {
					t.Fatalf("turn %d: bad tool_use %+v", i, b)
				}
				if i+1 < len(turns) && !toolIDs(turns[i+1], "tool_result")[b.ID] {
					t.Fatalf("turn %d: tool_use %s without result", i, b.ID)
				}
			case "tool_result":
				if turn.Role != "user" || seenOther {
					t.Fatalf("turn %d: tool_result misplaced", i)
				}
				if i == 0 || !toolIDs(turns[i-1], "tool_use")[b.ToolUseID] {
					t.Fatalf("turn %d: tool_result %s without call", i, b.ToolUseID)
				}
			}
		}
	}
	if n := len(turns); n > 0 && turns[n-1].Role == "assistant" {
		blocks := turns[n-1].Content
		if last := blocks[len(blocks)-1]; last.Type == "text" && strings.TrimRight(last.Text, " \n") != last.Text {
			t.Fatalf("final assistant text ends with white space: %q", last.Text)
		}
	}
}

// TestAPIMessagesCopiesOnlyToRepair: a chat with nothing to repair is
// rendered from the compiled messages themselves (a 100k-message compile
// would otherwise hold them twice); one tool result, call or invalid name
// takes the repairing copy, leaving the input as it was.
func TestAPIMessagesCopiesOnlyToRepair(t *testing.T) {
	plain := []tract.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "hi", Name: "ok_name"}, {Role: "assistant", Content: "hello"}}
	if got := apiMessages(plain); len(got) != len(plain) || &got[0] != &plain[0] {
		t.Fatal("plain chat copied")
	}
	for _, m := range []tract.Message{
		{Role: "user", Content: "x", Name: "bad name"},
		{Role: tract.RoleTool, Content: "r", ToolCallID: "c1"},
		{Role: "assistant", ToolCalls: []tract.ToolCall{{ID: "c1", Name: "f"}}},
	} {
		msgs := append(append([]tract.Message{}, plain...), m)
		before := fmt.Sprint(msgs)
		got := apiMessages(msgs)
		if &got[0] == &msgs[0] {
			t.Errorf("%+v: not copied", m)
		}
		if fmt.Sprint(msgs) != before {
			t.Errorf("%+v: input modified", m)
		}
		if fmt.Sprint(got) == before {
			t.Errorf("%+v: nothing repaired", m)
		}
	}
}

// Rendering in a scratch gives what Render gives, each time, whatever the
// scratch held before (a longer or shorter list, tool calls repaired or
// not).
func TestRenderInScratch(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var scratch []OpenAIMessage
		for step := range rapid.IntRange(1, 6).Draw(rt, "renders") {
			n := rapid.IntRange(1, 40).Draw(rt, "messages")
			var msgs []tract.Message
			for i := range n {
				m := tract.Message{Role: rapid.SampledFrom([]string{tract.RoleUser, tract.RoleAssistant, tract.RoleSystem}).Draw(rt, "role"), Content: fmt.Sprint("m", step, i)}
				if m.Role == tract.RoleAssistant && rapid.IntRange(0, 4).Draw(rt, "call") == 0 {
					m.ToolCalls = []tract.ToolCall{{ID: fmt.Sprint("c", i), Name: "f", Arguments: "{}"}}
				}
				msgs = append(msgs, m)
			}
			f := rapid.SampledFrom([]Format{FormatOpenAI, FormatOpenAIRequest}).Draw(rt, "format")
			want, err := Render(tract.Result{Messages: msgs}, f)
			if err != nil {
				rt.Fatal(err)
			}
			got, err := RenderIn(tract.Result{Messages: msgs}, f, &scratch)
			if err != nil {
				rt.Fatal(err)
			}
			w, _ := json.Marshal(want)
			g, _ := json.Marshal(got)
			if string(g) != string(w) {
				rt.Fatalf("render %d in the scratch:\n%s\nwant\n%s", step, g, w)
			}
		}
	})
}

// TestAnthropicEmptyInput: a tool_use block always carries its input, even
// an empty object, as the API requires.
func TestAnthropicEmptyInput(t *testing.T) {
	a := ToAnthropic([]tract.Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []tract.ToolCall{{ID: "c1", Name: "now", Arguments: "{}"}}},
		{Role: "tool", ToolCallID: "c1", Content: "noon"},
	})
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"go"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"now","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"noon"}]}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// A compiled context prints in the formats Validate lists; a model
// request's anthropic-request is RenderRequest's only.
func TestFormatValidate(t *testing.T) {
	for f, ok := range map[Format]bool{FormatAnthropic: true, FormatJSON: true, FormatText: true, "xml": false, FormatAnthropicRequest: false} {
		err := f.Validate()
		var ve *tract.ValidationError
		if ok != (err == nil) || (!ok && (!errors.As(err, &ve) || ve.Field != "format")) {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := Render(tract.Result{Messages: []tract.Message{{Role: "user", Content: "hi"}}}, FormatAnthropicRequest); err == nil {
		t.Error("Render made an anthropic-request")
	}
	r, err := RenderRequest(tract.Result{Messages: []tract.Message{{Role: "user", Content: "hi"}}}, FormatAnthropicRequest, RequestOptions{Model: "m", MaxTokens: 5}, nil)
	if err != nil || r.AnthropicRequest == nil || r.AnthropicRequest.Model != "m" || r.AnthropicRequest.MaxTokens != 5 {
		t.Errorf("RenderRequest: %+v, %v", r, err)
	}
}

func TestRender(t *testing.T) {
	res := tract.Result{Tract: "main", Messages: []tract.Message{{Role: tract.RoleSystem, Content: "Be brief."}, {Role: tract.RoleUser, Content: "hi"}}}
	for _, f := range []Format{FormatJSON, FormatOpenAI, FormatAnthropic, FormatText} {
		r, err := Render(res, f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		v, isJSON := r.JSON()
		switch f {
		case FormatJSON:
			if got, _ := v.(*tract.Result); got == nil || got.Tract != "main" {
				t.Errorf("json: %#v, want the result", v)
			}
		case FormatOpenAI:
			if got, _ := v.([]OpenAIMessage); len(got) != 2 || *got[1].Content != "hi" {
				t.Errorf("openai: %#v", v)
			}
		case FormatAnthropic:
			if got, _ := v.(*Anthropic); got == nil || got.System != "Be brief." || len(got.Messages) != 1 {
				t.Errorf("anthropic: %#v", v)
			}
		case FormatText:
			if isJSON || r.Text != tract.Text(res.Messages) || r.Text == "" {
				t.Errorf("text: %q, JSON %v", r.Text, isJSON)
			}
		}
	}
	if _, err := Render(res, "xml"); err == nil || err.Error() != `invalid format "xml": want json, openai, openai-request, anthropic or text` {
		t.Errorf("unknown format: %v", err)
	}
}
