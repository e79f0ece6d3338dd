package webui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
	"pgregory.net/rapid"
)

// requestFormats are the formats the compile page offers.
var requestFormats = []wire.Format{wire.FormatOpenAI, wire.FormatOpenAIRequest, wire.FormatAnthropic, wire.FormatText}

// wholeRequest is the request of res as the page showed it before it
// rendered a prefix only: the whole request, then cut.
func wholeRequest(t interface {
	Helper()
	Fatal(...any)
}, res tract.Result, f wire.Format) string {
	t.Helper()
	r, err := wire.Render(res, f)
	if err != nil {
		t.Fatal(err)
	}
	switch f {
	case wire.FormatText:
		return r.Text
	case wire.FormatOpenAI:
		return indentJSON(r.OpenAI)
	case wire.FormatOpenAIRequest:
		return indentJSON(r.OpenAIRequest)
	}
	return indentJSON(r.Anthropic)
}

// TestRequestShownIsTheWholeRequestCut: what the page shows of a request,
// rendered from a prefix of its messages, is the whole request's first
// MaxShownBytes, for any mix of roles, tool calls and results, system
// messages late in the history and texts that need escaping.
func TestRequestShownIsTheWholeRequestCut(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 120).Draw(t, "n")
		res := tract.Result{Tract: "main", Tools: []tract.ToolDef{{Name: "search"}}}
		open := []string{}
		for i := range n {
			m := tract.Message{Type: tract.TypeMessage, Commit: tract.Hash(fmt.Sprintf("%064d", i))}
			text := strings.Repeat(rapid.SampledFrom([]string{"a", "é", "<\"\\>", "\x00", "\xff", "line\n"}).Draw(t, "piece"), rapid.IntRange(0, 3000).Draw(t, "len"))
			switch rapid.IntRange(0, 9).Draw(t, "kind") {
			case 0:
				m.Role, m.Content = tract.RoleSystem, text
			case 1, 2:
				m.Role, m.Content = tract.RoleAssistant, text
				if rapid.Bool().Draw(t, "calls") {
					id := fmt.Sprintf("call%d", i)
					m.ToolCalls = []tract.ToolCall{{ID: id, Name: "search", Arguments: `{"q":"x"}`}}
					open = append(open, id)
				}
			case 3:
				if len(open) > 0 {
					m.Role, m.Content, m.ToolCallID = tract.RoleTool, text, open[0]
					open = open[1:]
					break
				}
				fallthrough
			default:
				m.Role, m.Content = tract.RoleUser, text
			}
			res.Messages = append(res.Messages, m)
		}
		for _, f := range requestFormats {
			whole := wholeRequest(t, res, f)
			got, err := requestShownAll(res, f)
			if err != nil {
				t.Fatal(err)
			}
			want := shown(whole, MaxShownBytes)
			if len(whole) > MaxShownBytes {
				// The count of the bytes left is what a prefix cannot know.
				want, _, _ = strings.Cut(want, "\n… ")
				got, _, _ = strings.Cut(got, "\n… ")
			}
			if got != want {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Fatalf("%s: the page shows a request that differs from the whole one at byte %d:\n%q\nwant\n%q", f, i, got[i:min(len(got), i+200)], want[i:min(len(want), i+200)])
			}
		}
	})
}

// TestRequestShownReadsAPrefix: of a 100k-message compile the page renders
// a few hundred messages, not the history (the bound on its memory), and
// says the request goes on.
func TestRequestShownReadsAPrefix(t *testing.T) {
	res := tract.Result{Tract: "main"}
	for i := range 100_000 {
		res.Messages = append(res.Messages, tract.Message{Role: tract.RoleUser, Type: tract.TypeMessage, Content: fmt.Sprintf("message %d about the report", i)})
	}
	res.Messages = append(res.Messages, tract.Message{Role: tract.RoleSystem, Type: tract.TypeInstruction, Content: "late rules"})
	for _, f := range requestFormats {
		p := &prefixer{f: f, open: map[string]bool{}}
		read := 0
		for i := range res.Messages {
			read++
			if !p.add(&res.Messages[i]) {
				break
			}
		}
		if p.n == len(res.Messages) || len(p.part) > 3000 {
			t.Errorf("%s: the page renders %d of %d messages (taken before the additions: %d)", f, len(p.part), len(res.Messages), p.n)
		}
		if f != wire.FormatAnthropic && read > 3000 {
			t.Errorf("%s: the prefix read %d messages to take %d", f, read, len(p.part))
		}
		got, err := requestShownAll(res, f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(got, "\n… the rest of the request is not shown") || len(got) > MaxShownBytes+100 {
			t.Errorf("%s: %d bytes ending %q", f, len(got), got[max(0, len(got)-60):])
		}
		if f == wire.FormatAnthropic && !strings.Contains(got, "late rules") {
			t.Errorf("anthropic: the system field lacks the late system message")
		}
	}
}

// requestShownAll is the request the compile page shows of res in format
// f: the messages handed to a prefixer one by one, as a compile window
// hands them out.
func requestShownAll(res tract.Result, f wire.Format) (string, error) {
	p := &prefixer{f: f, open: map[string]bool{}}
	for i := range res.Messages {
		if !p.add(&res.Messages[i]) {
			break
		}
	}
	count := len(res.Messages)
	res.Messages = p.part
	return requestShown(res, f, p.n == count)
}
