package storetest

import (
	"strings"
	"testing"
)

// TestValidatorsRefuse shows each validator catches what the APIs refuse
// (so a passing property test means something).
func TestValidatorsRefuse(t *testing.T) {
	openai := []struct{ name, json, want string }{
		{"ok", `[{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":"r","tool_call_id":"c1"}]`, ""},
		{"call without result", `[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}]`, "never answered"},
		{"orphan result", `[{"role":"user","content":"q"},{"role":"tool","content":"r","tool_call_id":"c1"}]`, "answers no call"},
		{"user between call and result", `[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"q"},{"role":"tool","content":"r","tool_call_id":"c1"}]`, "not answered before"},
		{"bad id", `[{"role":"assistant","content":null,"tool_calls":[{"id":"c.1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":"r","tool_call_id":"c.1"}]`, "bad tool call"},
		{"object arguments", `[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{}}}]},{"role":"tool","content":"r","tool_call_id":"c1"}]`, "bad tool call"},
		{"bad name", `[{"role":"system","content":"s","name":"my style"}]`, "name"},
		{"null user content", `[{"role":"user","content":null}]`, "string content"},
	}
	for _, tt := range openai {
		checkRefusal(t, "openai "+tt.name, ValidateOpenAI([]byte(tt.json)), tt.want)
	}
	anthropic := []struct{ name, json, want string }{
		{"ok", `{"system":"s","messages":[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"r"},{"type":"text","text":"go on"}]}]}`, ""},
		{"no messages", `{"system":"s","messages":[]}`, "at least one"},
		{"assistant first", `{"system":"","messages":[{"role":"assistant","content":[{"type":"text","text":"a"}]}]}`, "first turn"},
		{"same role twice", `{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"user","content":[{"type":"text","text":"b"}]}]}`, "alternate"},
		{"blank text", `{"system":"","messages":[{"role":"user","content":[{"type":"text","text":" "}]}]}`, "blank"},
		{"unanswered tool_use", `{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"f","input":{}}]},{"role":"user","content":[{"type":"text","text":"q"}]}]}`, "has no tool_result"},
		{"pending final tool_use", `{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"f","input":{}}]}]}`, "final turn"},
		{"result after text", `{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"f","input":{}}]},{"role":"user","content":[{"type":"text","text":"q"},{"type":"tool_result","tool_use_id":"c1"}]}]}`, "come first"},
		{"input not an object", `{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"f","input":[1]}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1"}]}]}`, "bad tool_use"},
		{"trailing space", `{"system":"","messages":[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"text","text":"a "}]}]}`, "white space"},
	}
	for _, tt := range anthropic {
		checkRefusal(t, "anthropic "+tt.name, ValidateAnthropic([]byte(tt.json)), tt.want)
	}
}

func checkRefusal(t *testing.T, name string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: refused: %v", name, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: got %v, want an error containing %q", name, err, want)
	}
}
