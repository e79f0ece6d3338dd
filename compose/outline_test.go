package compose_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

func hash(i int) tract.Hash { return tract.Hash(fmt.Sprintf("%064x", i)) }

// An outline lists the non-tract blocks in full and the tract's messages as
// runs that break where the part, author tract, spawn path or priority
// changes; the newest runs when there are more. Dropped messages are runs
// among the newest ones, the rest summed up.
func TestOutline(t *testing.T) {
	res := compose.Result{Totals: compose.Totals{Tokens: 1000}, DroppedMessageCount: 700, DroppedMessageTokens: 7000}
	res.Blocks = append(res.Blocks, compose.Block{Part: compose.PartSystem, Source: compose.SourceInstructions, Tokens: 10})
	add := func(part, tr string, path []string, p tract.Priority) {
		i := len(res.Blocks)
		res.Blocks = append(res.Blocks, compose.Block{Index: i, Part: part, Source: compose.SourceTract, Tract: tr, SpawnPath: path, Priority: p, Tokens: 2, Commit: hash(i)})
	}
	main, kid := []string{"main"}, []string{"main", "kid"}
	add(compose.PartSystem, "main", main, tract.Pinned)
	add(compose.PartMessages, "main", main, tract.Normal)
	add(compose.PartMessages, "main", main, tract.Normal)
	add(compose.PartMessages, "kid", kid, tract.Normal)
	add(compose.PartMessages, "kid", kid, tract.Important)
	add(compose.PartMessages, "kid", kid, tract.Important)
	add(compose.PartMessages, "main", main, tract.Normal)
	for i := range res.Blocks {
		res.Blocks[i].Index = i
	}
	o := res.Outline(32, 8)
	var got []string
	for _, r := range o.Runs {
		got = append(got, fmt.Sprintf("%d+%d %s %s %s %d %s..%s", r.Index, r.Count, r.Part, strings.Join(r.SpawnPath, ">"), r.Priority, r.Tokens, r.First[62:], r.Last[62:]))
	}
	want := []string{"1+1 system main pinned 2 01..01", "2+2 messages main normal 4 02..03", "4+1 messages main>kid normal 2 04..04",
		"5+2 messages main>kid important 4 05..06", "7+1 messages main normal 2 07..07"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(o.Blocks) != 1 || o.Messages != 8 || o.OmittedRuns != 0 {
		t.Fatalf("runs:\n%s\nwant:\n%s\nblocks %+v", strings.Join(got, "\n"), strings.Join(want, "\n"), o.Blocks)
	}
	if o := res.Outline(2, 8); o.OmittedRuns != 3 || len(o.Runs) != 2 || o.Runs[0].Index != 5 {
		t.Fatalf("newest two runs: %+v", o)
	}

	// 700 dropped: 600 normal of main, then alternating runs of 10 of kid
	// (important, normal, ...).
	for i := range 700 {
		d := tract.Dropped{Commit: hash(i), Tract: "main", Priority: tract.Normal, Tokens: 10}
		if i >= 600 {
			d.Tract = "kid"
			if (i/10)%2 == 0 {
				d.Priority = tract.Important
			}
		}
		res.DroppedMessages = append(res.DroppedMessages, d)
	}
	o = res.Outline(32, 8)
	if len(o.DroppedRuns) != 8 || o.EarlierDropped == nil || o.EarlierDropped.Count != 620 || o.EarlierDropped.Tokens != 6200 ||
		o.EarlierDropped.First != hash(0) || o.EarlierDropped.Last != hash(619) {
		t.Fatalf("dropped runs %+v, earlier %+v", o.DroppedRuns, o.EarlierDropped)
	}
	for i, r := range o.DroppedRuns {
		if r.Count != 10 || r.Tract != "kid" || r.First != hash(620+10*i) || r.Last != hash(629+10*i) || r.Tokens != 100 {
			t.Errorf("dropped run %d: %+v", i, r)
		}
	}
	// Within the window, one run of main, a partial one: the window ends
	// it; the earlier ones are summed up.
	o = res.Outline(32, 100)
	if len(o.DroppedRuns) != 11 || o.DroppedRuns[0].Tract != "main" || o.DroppedRuns[0].Count != 512-100 || o.EarlierDropped.Count != 700-512 {
		t.Fatalf("window: %d runs, first %+v, earlier %+v", len(o.DroppedRuns), o.DroppedRuns[0], o.EarlierDropped)
	}
	res.DroppedMessages = res.DroppedMessages[:5]
	if o := res.Outline(32, 8); len(o.DroppedRuns) != 1 || o.DroppedRuns[0].Count != 5 || o.EarlierDropped != nil {
		t.Fatalf("five dropped: %+v %+v", o.DroppedRuns, o.EarlierDropped)
	}
}

// The request text is the request's compact JSON with each message and
// tool starting a line; strings that look like JSON stay as they are.
func TestRequestText(t *testing.T) {
	tricky := []string{`plain`, `"quoted" {"a":[{"b":1}]}`, `back\slash\\" [{`, "line\nbreak", `ends with \`}
	var msgs []wire.OpenAIMessage
	for i := range tricky {
		msgs = append(msgs, wire.OpenAIMessage{Role: "user", Content: &tricky[i]})
	}
	anth := &wire.Anthropic{System: `sys {"x":[{}]}`, Messages: []wire.AnthropicMessage{
		{Role: "user", Content: []wire.AnthropicBlock{{Type: "text", Text: tricky[1]}, {Type: "text", Text: tricky[2]}}},
		{Role: "assistant", Content: []wire.AnthropicBlock{{Type: "text", Text: tricky[4]}}}}}
	for _, c := range []struct {
		request wire.Rendered
		lines   int
	}{
		{wire.Rendered{Format: compose.FormatOpenAI, OpenAI: msgs}, len(msgs) + 1},
		{wire.Rendered{Format: compose.FormatOpenAIRequest, OpenAIRequest: &wire.OpenAIBody{Model: "m",
			OpenAIRequest: wire.OpenAIRequest{Messages: msgs, Tools: []wire.OpenAITool{{Type: "function"}}}}}, len(msgs) + 2},
		{wire.Rendered{Format: compose.FormatAnthropic, Anthropic: anth}, 3},
		{wire.Rendered{Format: compose.FormatAnthropicRequest, AnthropicRequest: &wire.AnthropicRequest{Model: "m", MaxTokens: 9, System: anth.System, Messages: anth.Messages}}, 3},
	} {
		text, err := compose.Result{Request: c.request}.RequestText()
		if err != nil {
			t.Fatal(err)
		}
		// The request marshals as its format's value.
		v, _ := c.request.JSON()
		compact, _ := json.Marshal(v, json.Deterministic(true))
		lines := strings.Split(text, "\n")
		if strings.ReplaceAll(text, "\n", "") != string(compact) || len(lines) != c.lines {
			t.Errorf("%d lines:\n%s\nwant %d lines of %s", len(lines), text, c.lines, compact)
		}
		for _, l := range lines[1:] {
			if !strings.HasPrefix(l, "{") {
				t.Errorf("line %q does not start an element", l)
			}
		}
	}
	if text, _ := (compose.Result{Request: wire.Rendered{Format: compose.FormatText, Text: "user: hi\n\nassistant: yes"}}).RequestText(); text != "user: hi\n\nassistant: yes" {
		t.Errorf("text format: %q", text)
	}
}

// Whatever the messages say, the request text is the compact JSON with
// line breaks only before the messages.
func FuzzRequestText(f *testing.F) {
	f.Add("plain", `"q" {"a":[{}]} \`)
	f.Fuzz(func(t *testing.T, a, b string) {
		req := &wire.OpenAIBody{OpenAIRequest: wire.OpenAIRequest{Messages: []wire.OpenAIMessage{{Role: "user", Content: &a}, {Role: "assistant", Content: &b}}}}
		text, err := compose.Result{Request: wire.Rendered{Format: compose.FormatOpenAIRequest, OpenAIRequest: req}}.RequestText()
		if err != nil {
			t.Fatal(err)
		}
		compact, _ := json.Marshal(req, json.Deterministic(true), jsontext.AllowInvalidUTF8(true))
		if strings.ReplaceAll(text, "\n", "") != string(compact) || strings.Count(text, "\n{") != 2 || strings.Count(text, "\n") != 2 {
			t.Fatalf("%q\nfrom %s", text, compact)
		}
	})
}
