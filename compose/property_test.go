package compose_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/tokens"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
	"github.com/agentlineage/lineage/tract/storetest"
	"github.com/agentlineage/lineage/tract/wire"
	"github.com/agentlineage/lineage/triad"
	"github.com/go-json-experiment/json"
	"pgregory.net/rapid"
)

// world is one random workspace: a chain of directories with AGENTS.md
// files and agent documents, and a store with a tract DAG.
type world struct {
	root, target string
	cfg          instructions.Config
	slug         string
	repo         *tract.Repo
	tract        string
}

var words = []string{"test", "ship", "never", "push", "main", "keep", "handlers", "small", "ünïcode", "🎛️", "\"quoted\"", "line\nbreak"}

func sentence(t *rapid.T, label string) string {
	n := rapid.IntRange(1, 12).Draw(t, label+" words")
	var ws []string
	for i := 0; i < n; i++ {
		ws = append(ws, rapid.SampledFrom(words).Draw(t, label+" word"))
	}
	return strings.Join(ws, " ")
}

func write(t *rapid.T, path, content string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newWorld draws the three inputs.
func newWorld(t *rapid.T, base string) world {
	w := world{root: filepath.Join(base, "repo"), slug: "ag", tract: "main", cfg: instructions.DefaultConfig()}
	write(t, filepath.Join(w.root, ".git", "HEAD"), "ref: refs/heads/main\n")
	depth := rapid.IntRange(0, 4).Draw(t, "depth")
	dirs := []string{w.root}
	for i := 0; i < depth; i++ {
		dirs = append(dirs, filepath.Join(dirs[i], "d"+strconv.Itoa(i)))
	}
	if err := os.MkdirAll(dirs[len(dirs)-1], 0o755); err != nil {
		t.Fatal(err)
	}
	docs := 0
	for i, d := range dirs {
		switch rapid.IntRange(0, 3).Draw(t, "agents.md") {
		case 1:
			write(t, filepath.Join(d, "AGENTS.md"), sentence(t, "rules")+"\n")
		case 2:
			write(t, filepath.Join(d, "AGENTS.md"), "  \n")
		case 3:
			write(t, filepath.Join(d, "AGENTS.md"), strings.Repeat(sentence(t, "long rules")+"\n", 20))
		}
		if rapid.Bool().Draw(t, "triad here") {
			doc := map[string]any{"schemaVersion": "0.4.0", "slug": w.slug}
			for _, f := range []string{"role", "purpose", "title"} {
				if rapid.Bool().Draw(t, f) {
					doc[f] = sentence(t, f)
				}
			}
			for _, f := range []string{"guardrails", "responsibilities"} {
				if rapid.Bool().Draw(t, f) {
					var items []string
					for range rapid.IntRange(0, 3).Draw(t, f+" items") {
						items = append(items, sentence(t, f))
					}
					doc[f] = items
				}
			}
			if rapid.Bool().Draw(t, "directives") {
				doc["directives"] = map[string]any{"gd": map[string]any{"text": sentence(t, "directive")}}
			}
			data, _ := json.Marshal(doc, json.Deterministic(true))
			write(t, filepath.Join(d, ".clia", "agents", w.slug, fmt.Sprintf("%s@l%d.agent.triad.json", w.slug, i)), string(data))
			docs++
		}
	}
	if docs == 0 || !rapid.Bool().Draw(t, "with slug") {
		w.slug = ""
	}
	w.target = dirs[len(dirs)-1]
	if rapid.Bool().Draw(t, "file target") {
		w.target = filepath.Join(w.target, "x.go")
		write(t, w.target, "package x\n")
	}
	if rapid.Bool().Draw(t, "caps") {
		w.cfg.Initial.MaxFiles = rapid.IntRange(1, 5).Draw(t, "maxFiles")
		w.cfg.Initial.MaxBytes = rapid.IntRange(1, 400).Draw(t, "maxBytes")
	}
	return w
}

// grow draws a tract DAG: appends of every kind, tool calls, a spawned
// child with its own commits merged back, and annotations.
func grow(ctx context.Context, t *rapid.T, repo *tract.Repo) {
	var hashes []tract.Hash
	commit := func(name string, c tract.Content) {
		cm, err := repo.Commit(ctx, name, tract.CommitRequest{Content: c})
		if err != nil {
			t.Fatalf("commit: %v", err)
		}
		if name == "main" {
			hashes = append(hashes, cm.Hash)
		}
	}
	spawned := false
	calls := 0
	for range rapid.IntRange(0, 25).Draw(t, "steps") {
		switch op := rapid.SampledFrom([]string{"user", "assistant", "instruction", "named", "tool", "spawn", "child", "merge-from", "annotate"}).Draw(t, "op"); op {
		case "user", "assistant":
			commit("main", tract.Content{Type: tract.TypeMessage, Role: op, Text: sentence(t, op)})
		case "instruction":
			commit("main", tract.Content{Type: tract.TypeInstruction, Text: sentence(t, op)})
		case "named":
			commit("main", tract.Content{Type: tract.TypeInstruction, Name: rapid.SampledFrom([]string{"style", "tools"}).Draw(t, "name"), Text: sentence(t, op)})
		case "tool":
			calls++
			id := "call" + strconv.Itoa(calls)
			commit("main", tract.Content{Type: tract.TypeToolCall, ToolCalls: []tract.ToolCall{{ID: id, Name: "grep", Arguments: `{"q":1}`}}})
			if rapid.Bool().Draw(t, "answered") {
				commit("main", tract.Content{Type: tract.TypeToolResult, ToolCallID: id, Text: sentence(t, "result")})
			}
		case "spawn":
			if !spawned {
				if _, err := repo.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "sub-task"}); err != nil {
					t.Fatalf("spawn: %v", err)
				}
				spawned = true
			}
		case "child":
			if spawned {
				commit("kid", tract.Content{Type: tract.TypeMessage, Role: tract.RoleAssistant, Text: sentence(t, "kid")})
			}
		case "merge-from":
			if spawned {
				if _, err := repo.MergeFrom(ctx, "kid", "main"); err != nil && !errors.Is(err, tract.ErrNoCommits) {
					t.Fatalf("merge-from: %v", err)
				}
			}
		case "annotate":
			if len(hashes) > 0 {
				h := rapid.SampledFrom(hashes).Draw(t, "annotated")
				p := rapid.SampledFrom([]tract.Priority{tract.Pinned, tract.Skip, tract.Important, tract.Normal}).Draw(t, "priority")
				if _, err := repo.Annotate(ctx, "main", string(h), p, "test"); err != nil {
					t.Fatalf("annotate: %v", err)
				}
			}
		}
	}
}

// profileByHand renders the profile block from `agents profile`'s document
// as the spec of docs/context.md says.
func profileByHand(t *rapid.T, w world) string {
	ch, err := agents.Resolve(agents.Options{Path: filepath.Dir(w.target + "/x")}, w.slug)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ch.RequireProfile(triad.Agent)
	if err != nil {
		t.Fatal(err)
	}
	doc := p.Document(agents.DocumentOptions{})
	var b strings.Builder
	for _, f := range compose.DefaultProfileFields {
		v := doc.Get(f)
		if v == nil || v.IsEmpty() || (v.Kind == triad.Array && len(v.Items) == 0) || (v.Kind == triad.Object && len(v.Members) == 0) {
			continue
		}
		b.WriteString(f + ": " + string(triad.Canonical(v)))
	}
	if b.Len() == 0 {
		return ""
	}
	return "<agent_profile slug=" + strconv.Quote(w.slug) + ">\n" + b.String() + "</agent_profile>"
}

// The compiled system part is the three existing outputs composed by hand,
// the provenance's tokens add up to the request's, every request passes
// the API validators, and the output is byte-identical when compiled again.
func TestComposeProperty(t *testing.T) {
	counter, err := tokens.Get("")
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		base := t.TempDir()
		w := newWorld(rt, base)
		st, err := sqlite.Open(ctx, filepath.Join(base, "lineage.db"), sqlite.Options{Create: true})
		if err != nil {
			rt.Fatal(err)
		}
		defer st.Close()
		clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		repo := tract.New(st, tract.Options{Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
		if _, _, err := repo.Init(ctx); err != nil {
			rt.Fatal(err)
		}
		grow(ctx, rt, repo)
		// -1: the edge of the pinned part, what a budget error says it
		// needs, or one token less.
		budget := rapid.SampledFrom([]int{0, 0, 30, 120, 400, 2000, -1}).Draw(rt, "budget")
		withTract := rapid.Bool().Draw(rt, "with tract")
		format := rapid.SampledFrom(compose.Formats()).Draw(rt, "format")
		o := compose.Options{
			Target:       w.target,
			Instructions: instructions.Options{Config: w.cfg, Cwd: base, Home: base},
			Slug:         w.slug,
			Budget:       budget,
			Format:       format,
			Cold:         rapid.Bool().Draw(rt, "cold"),
		}
		if withTract {
			o.Repo, o.Tract = repo, "main"
		}
		if rapid.Bool().Draw(rt, "scratch") {
			// A scratch another compile (the whole history, another
			// format) left its messages and blocks in: this compile's
			// and the one again are built in its memory.
			o.Scratch = &compose.Scratch{}
			before := o
			before.Budget, before.Format = 0, compose.FormatText
			if _, err := compose.Compile(ctx, before); err != nil && !errors.Is(err, wire.ErrEmptyContext) {
				rt.Fatalf("compile before, in the scratch: %v", err)
			}
		}
		needed := 0
		if budget < 0 {
			tiny := o
			tiny.Budget = 1
			_, err := compose.Compile(ctx, tiny)
			var be *compose.BudgetError
			if !errors.As(err, &be) {
				rt.Fatalf("budget 1: %v", err)
			}
			needed = be.Needed
			budget = needed - rapid.IntRange(0, 1).Draw(rt, "below the pinned part")
			o.Budget = budget
		}
		res, err := compose.Compile(ctx, o)
		if needed > 0 {
			var be *compose.BudgetError
			switch {
			case budget < needed && (!errors.As(err, &be) || be.Needed != needed):
				rt.Fatalf("budget %d, one below the %d the pinned part needs: %v", budget, needed, err)
			case budget == needed && errors.As(err, &be):
				rt.Fatalf("budget %d, what the pinned part needs, refused: %v", budget, err)
			}
		}

		// By hand: the instruction block, the profile block, the tract.
		dir := w.target
		if filepath.Ext(dir) == ".go" {
			dir = filepath.Dir(dir)
		}
		_, in := instructions.Start(instructions.Options{Config: w.cfg, Cwd: dir, Home: base})
		var own []string
		if in.Text != "" {
			own = append(own, in.Text)
		}
		if w.slug != "" {
			if block := profileByHand(rt, w); block != "" {
				own = append(own, block)
			}
		}
		var be *compose.BudgetError
		if errors.As(err, &be) {
			checkBudgetError(ctx, rt, be, budget, withTract, repo)
			return
		}
		if errors.Is(err, wire.ErrEmptyContext) {
			if len(own) > 0 || (format != compose.FormatOpenAI && format != compose.FormatOpenAIRequest) {
				rt.Fatalf("empty context error with %d own blocks, format %s", len(own), format)
			}
			return
		}
		if err != nil {
			rt.Fatal(err)
		}
		if len(res.Messages) < len(own) {
			rt.Fatalf("%d messages, %d own blocks", len(res.Messages), len(own))
		}
		ownTokens := 0
		for i, text := range own {
			m, b := res.Messages[i], res.Blocks[i]
			if m.Content != text || m.Role != tract.RoleSystem || b.Part != compose.PartSystem {
				rt.Fatalf("system block %d:\n got %q\nwant %q", i, m.Content, text)
			}
			// Counted piece by piece, the block is within a token per piece
			// of counting it whole.
			whole := tract.MessageTokens(counter.Count(text), false)
			pieces := len(b.Files) + len(b.Fields) + 2
			if d := whole - b.Tokens; d > pieces || d < -pieces {
				rt.Fatalf("block %d: %d tokens, %d counted whole", i, b.Tokens, whole)
			}
			ownTokens += b.Tokens
		}
		if withTract {
			co := tract.CompileOptions{}
			if budget > 0 {
				co.Budget = budget - ownTokens
			}
			hist, err := repo.CompileCold(ctx, "main", co)
			if err != nil {
				rt.Fatalf("tract compile by hand: %v", err)
			}
			var sys, rest []tract.Message
			for _, m := range hist.Messages {
				if m.Role == tract.RoleSystem && m.Priority == tract.Pinned {
					sys = append(sys, m)
				} else {
					rest = append(rest, m)
				}
			}
			want := append(sys, rest...)
			got := res.Messages[len(own):]
			if len(got) != len(want) {
				rt.Fatalf("%d tract messages, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].Commit != want[i].Commit || got[i].Content != want[i].Content || res.Blocks[len(own)+i].Commit != want[i].Commit {
					rt.Fatalf("tract message %d: %s, want %s", i, got[i].Commit.Short(), want[i].Commit.Short())
				}
			}
			if len(res.DroppedMessages) != len(hist.Dropped) {
				rt.Fatalf("%d messages dropped, the tract dropped %d", len(res.DroppedMessages), len(hist.Dropped))
			}
		} else if len(res.Messages) != len(own) {
			rt.Fatalf("%d messages without a tract, want %d", len(res.Messages), len(own))
		}
		checkSums(rt, res, budget)
		checkRequest(rt, res)
		// (With a scratch, res is valid until the next compile.)
		a, _ := json.Marshal(res, json.Deterministic(true))
		again, err := compose.Compile(ctx, o)
		if err != nil {
			rt.Fatal(err)
		}
		b, _ := json.Marshal(again, json.Deterministic(true))
		if string(a) != string(b) {
			rt.Fatalf("second compile differs:\n%s\n%s", a, b)
		}
	})
}

// checkSums: the request's tokens are its overhead plus its blocks', each
// block's its overhead plus its files' or fields', within the budget.
func checkSums(t *rapid.T, res compose.Result, budget int) {
	sum, sys := res.Overhead, 0
	for i, b := range res.Blocks {
		parts := b.Overhead
		for _, f := range b.Files {
			parts += f.Tokens
		}
		for _, f := range b.Fields {
			parts += f.Tokens
		}
		if parts != b.Tokens || b.Index != i || b.Tokens != res.Messages[i].Tokens {
			t.Fatalf("block %d: %d tokens, parts %d, message %d", i, b.Tokens, parts, res.Messages[i].Tokens)
		}
		sum += b.Tokens
		if b.Part == compose.PartSystem {
			sys += b.Tokens
		}
	}
	if sum != res.Tokens || sys != res.SystemTokens {
		t.Fatalf("tokens %d (system %d), blocks add up to %d (system %d)", res.Tokens, res.SystemTokens, sum, sys)
	}
	if budget > 0 && res.Tokens > budget {
		t.Fatalf("%d tokens over the budget of %d", res.Tokens, budget)
	}
}

// checkRequest runs the store tests' API validators on the request.
func checkRequest(t *rapid.T, res compose.Result) {
	data, err := json.Marshal(res.Request, json.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	switch res.Format {
	case compose.FormatOpenAI:
		err = storetest.ValidateOpenAI(data)
	case compose.FormatOpenAIRequest:
		err = storetest.ValidateOpenAIRequest(data)
	case compose.FormatAnthropic, compose.FormatAnthropicRequest:
		err = storetest.ValidateAnthropic(data)
	}
	if err != nil {
		t.Fatalf("%s request rejected: %v\n%s", res.Format, err, data)
	}
}

// checkBudgetError: the error names at most three contributors, largest
// first, and the pinned part it reports does exceed the budget.
func checkBudgetError(ctx context.Context, t *rapid.T, be *compose.BudgetError, budget int, withTract bool, repo *tract.Repo) {
	if budget == 0 || be.Needed <= budget || (len(be.Largest) == 0 && be.Needed != tract.PrimerTokens) || len(be.Largest) > 3 {
		t.Fatalf("budget error %v for budget %d", be, budget)
	}
	if !slices.IsSortedFunc(be.Largest, func(a, b compose.Contributor) int { return b.Tokens - a.Tokens }) {
		t.Fatalf("contributors not largest first: %+v", be.Largest)
	}
	if !withTract {
		return
	}
	hist, err := repo.CompileCold(ctx, "main", tract.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range hist.Messages {
		if m.Priority == tract.Pinned && m.Tokens > be.Largest[len(be.Largest)-1].Tokens && len(be.Largest) == 3 {
			found := false
			for _, c := range be.Largest {
				found = found || strings.HasPrefix(c.Name, m.Commit.Short())
			}
			if !found {
				t.Fatalf("pinned commit %s (%d tokens) larger than the contributors named: %+v", m.Commit.Short(), m.Tokens, be.Largest)
			}
		}
	}
}
