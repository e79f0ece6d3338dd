package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
	"github.com/go-json-experiment/json"
	"pgregory.net/rapid"
)

func init() {
	suites = append(suites, []testCase{
		{"WarmCompileEqualsCold", testWarmEqualsCold},
	})
}

// testWarmEqualsCold applies random sequences of appends, edits,
// annotations, branches, merges and resets, and after each step compares the
// cached (warm) compile of one long-lived repo, and the compile of a fresh
// repo (a new process: the stored compile checkpoint extended to the head),
// with a cold compile from the history alone.
func testWarmEqualsCold(t *testing.T, newStore Factory) {
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		s := newStore(t)
		defer s.Close() // with each case (each holds a PostgreSQL connection)
		clk := newClock()
		every := rapid.SampledFrom([]int{1, 3, 0}).Draw(rt, "checkpoint every")
		// Checkpoints in pieces of 1 to 3 messages: windows read a few.
		piece := rapid.SampledFrom([]int{1, 2, 3, 0}).Draw(rt, "checkpoint piece")
		warm := tract.New(s, tract.Options{Now: clk.Now, CheckpointEvery: every, CheckpointPiece: piece})
		if _, _, err := warm.Init(ctx); err != nil {
			rt.Fatal(err)
		}
		branches := []string{"main"}
		// One budget all along exercises the budget work a view keeps
		// and resumes; -1 draws one per step.
		fixed := rapid.SampledFrom([]int{-1, -1, 20, 40, 80}).Draw(rt, "fixed budget")
		steps := rapid.IntRange(1, 40).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			op := rapid.SampledFrom([]string{"append", "append", "append", "named", "tool", "edit", "annotate", "branch", "switch", "merge", "reset", "compile",
				"spawn", "child", "child", "child-tool", "merge-from", "child-annotate", "gc", "compress", "compress"}).Draw(rt, "op")
			if err := propertyStep(ctx, rt, warm, op, &branches); err != nil {
				rt.Fatalf("%s: %v", op, err)
			}
			budget := fixed
			if fixed < 0 {
				budget = rapid.SampledFrom([]int{0, 0, 20, 40, 80}).Draw(rt, "budget")
			}
			compareWarmCold(ctx, rt, warm, "main", tract.CompileOptions{Budget: budget})
			compareWarmCold(ctx, rt, warm, "kid0", tract.CompileOptions{})
			for _, name := range []string{"main", "kid0"} {
				checkShortLog(ctx, rt, warm, name)
				checkAPIFormats(ctx, rt, warm, name, budget)
			}
		}
	})
}

func propertyStep(ctx context.Context, rt *rapid.T, r *tract.Repo, op string, branches *[]string) error {
	text := rapid.SampledFrom([]string{"a", "bb", "hello there", "one two three four"}).Draw(rt, "text")
	var err error
	switch op {
	case "append":
		typ := rapid.SampledFrom([]tract.Type{tract.TypeMessage, tract.TypeInstruction, tract.TypeReasoning, tract.TypeMetadata}).Draw(rt, "type")
		_, err = r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: typ, Text: text}})
	case "named":
		name := rapid.SampledFrom([]string{"style", "tools"}).Draw(rt, "name")
		_, err = r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeInstruction, Name: name, Text: text}})
	case "tool":
		err = toolStep(ctx, rt, r, text)
	case "edit", "annotate", "reset":
		err = targetStep(ctx, rt, r, op, text)
	case "branch":
		name := fmt.Sprintf("b%d", len(*branches))
		if _, err = r.CreateBranch(ctx, "main", name, ""); err == nil {
			*branches = append(*branches, name)
		} else if errors.Is(err, tract.ErrNoCommits) {
			err = nil
		}
	case "switch":
		err = r.Switch(ctx, "main", rapid.SampledFrom(*branches).Draw(rt, "branch"))
		if errors.Is(err, tract.ErrNotFound) {
			err = nil // an unborn branch
		}
	case "merge":
		b := rapid.SampledFrom(*branches).Draw(rt, "branch")
		strategy := rapid.SampledFrom([]string{"", "ours", "theirs"}).Draw(rt, "strategy")
		_, err = r.Merge(ctx, "main", b, tract.MergeOptions{NoFF: rapid.Bool().Draw(rt, "no-ff"), Strategy: strategy})
		if errors.Is(err, tract.ErrConflict) || errors.Is(err, tract.ErrNotFound) || errors.Is(err, tract.ErrNoCommits) {
			err = nil
		}
	case "compile":
	case "spawn":
		name := fmt.Sprintf("kid%d", rapid.IntRange(0, 2).Draw(rt, "kid"))
		mode := rapid.SampledFrom([]tract.SpawnMode{tract.SpawnReference, tract.SpawnSnapshot, tract.SpawnEmpty}).Draw(rt, "mode")
		_, err = r.Spawn(ctx, "main", name, tract.SpawnOptions{Purpose: "p", Mode: mode})
		if errors.Is(err, tract.ErrExists) {
			err = nil
		}
	case "child", "child-tool", "merge-from", "child-annotate":
		err = childStep(ctx, rt, r, op, text)
	case "gc":
		_, err = r.GC(ctx, tract.GCOptions{})
	case "compress":
		err = compressStep(ctx, rt, r, text)
	}
	return err
}

// toolStep commits a tool call (one or two, their ids and names drawn from
// hostile ones) or a tool result.
func toolStep(ctx context.Context, rt *rapid.T, r *tract.Repo, text string) error {
	var err error
	id := rapid.SampledFrom([]string{"call0", "call1", "call2", "call.3/x", "toolu_" + strings.Repeat("9", 70)}).Draw(rt, "call")
	args := rapid.SampledFrom([]string{"", `{"q":1}`, "[1,2]", "not json"}).Draw(rt, "arguments")
	fn := rapid.SampledFrom(hostileToolNames).Draw(rt, "function")
	calls := []tract.ToolCall{{ID: id, Name: fn, Arguments: args}}
	if rapid.Bool().Draw(rt, "two calls") {
		calls = append(calls, tract.ToolCall{ID: "call1", Name: "g"})
	}
	if rapid.Bool().Draw(rt, "call or result") {
		_, err = r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeToolCall, Text: text, ToolCalls: calls}})
		var ve *tract.ValidationError
		if errors.As(err, &ve) {
			err = nil // a call with duplicate ids is refused; fine
		}
	} else {
		_, err = r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeToolResult, ToolCallID: id, Text: text}})
	}
	return err
}

// targetStep edits, annotates or resets to a commit drawn from main's
// history.
func targetStep(ctx context.Context, rt *rapid.T, r *tract.Repo, op, text string) error {
	target, ok, lerr := pickCommit(ctx, rt, r)
	if lerr != nil || !ok {
		return lerr
	}
	var err error
	switch op {
	case "edit":
		_, err = r.Edit(ctx, "main", string(target.Hash), text, "")
		var ve *tract.ValidationError
		if errors.As(err, &ve) {
			err = nil // editing an edit or a merge is rejected; fine
		}
	case "annotate":
		p := rapid.SampledFrom([]tract.Priority{tract.Skip, tract.Normal, tract.Important, tract.Pinned}).Draw(rt, "priority")
		_, err = r.Annotate(ctx, "main", string(target.Hash), p, "")
	case "reset":
		_, err = r.Reset(ctx, "main", string(target.Hash))
	}
	return err
}

// compressStep compresses a random run of main's first-parent history (or
// plans one), sometimes skipping a summary again.
func compressStep(ctx context.Context, rt *rapid.T, r *tract.Repo, text string) error {
	i := rapid.IntRange(0, 6).Draw(rt, "to")
	j := rapid.IntRange(i, 8).Draw(rt, "from")
	rng := fmt.Sprintf("HEAD~%d..HEAD~%d", j, i)
	if rapid.Bool().Draw(rt, "plan") {
		plan, err := r.PlanCompress(ctx, "main", tract.PlanOptions{Budget: rapid.IntRange(10, 80).Draw(rt, "plan budget")})
		if errors.Is(err, tract.ErrNoCommits) {
			return nil
		}
		if err != nil || len(plan.Ranges) == 0 {
			return err
		}
		rng = plan.Ranges[0].Range
	}
	res, err := r.Compress(ctx, "main", tract.CompressOptions{Range: rng, Summary: "summary " + text})
	var ve *tract.ValidationError
	if errors.As(err, &ve) || errors.Is(err, tract.ErrNotFound) || errors.Is(err, tract.ErrNoCommits) {
		return nil // a range of only pinned or skipped messages, or past the root
	}
	if err != nil {
		return err
	}
	if rapid.IntRange(0, 3).Draw(rt, "unskip") == 0 {
		_, err = r.Annotate(ctx, "main", string(res.Commit), tract.Skip, "")
	}
	return err
}

// drawPrune draws a compile-time prune policy (often none).
func drawPrune(rt *rapid.T) tract.PrunePolicy {
	return tract.PrunePolicy{
		ToolResults: rapid.Bool().Draw(rt, "prune tool results"),
		OlderThan:   rapid.IntRange(0, 2).Draw(rt, "prune older than"),
		KeepLast:    rapid.IntRange(0, 2).Draw(rt, "prune keep last"),
		LargerThan:  rapid.IntRange(0, 20).Draw(rt, "prune larger than"),
		FailedTurns: rapid.Bool().Draw(rt, "prune failed turns"),
	}
}

// pickCommit draws a commit of main's current history.
func pickCommit(ctx context.Context, rt *rapid.T, r *tract.Repo) (tract.LogEntry, bool, error) {
	log, err := r.Log(ctx, "main", tract.LogOptions{})
	if err != nil || len(log) == 0 {
		return tract.LogEntry{}, false, err
	}
	return rapid.SampledFrom(log).Draw(rt, "commit"), true, nil
}

func compareWarmCold(ctx context.Context, rt *rapid.T, r *tract.Repo, name string, o tract.CompileOptions) {
	if _, err := r.Tract(ctx, name); err != nil {
		return
	}
	w, werr := r.Compile(ctx, name, o)
	cold := tract.New(r.Store(), tract.Options{NoCheckpoints: true})
	c, cerr := cold.CompileCold(ctx, name, o)
	// A fresh repo reads the stored checkpoint (and may store one).
	fresh := tract.New(r.Store(), tract.Options{CheckpointEvery: rapid.SampledFrom([]int{1, 0}).Draw(rt, "fresh every")})
	f, ferr := fresh.CompileCold(ctx, name, o)
	// Status's figure (from the checkpoint's header and the commits past
	// it, or a compile) is the compile's, whatever came after the
	// checkpoint.
	if o == (tract.CompileOptions{}) && cerr == nil {
		st, err := tract.New(r.Store(), tract.Options{}).Status(ctx, name)
		if err != nil || st.Tokens != c.Tokens {
			rt.Fatalf("status: %d tokens (%v), cold compile %d", st.Tokens, err, c.Tokens)
		}
	}
	// Written as it is read: the bytes WriteOpenAI writes of the cold
	// compile, or its error.
	if o.At == "" {
		var streamed, want bytes.Buffer
		serr := compileOpenAI(ctx, fresh, &streamed, name, o, "  ")
		werr := cerr
		if werr == nil {
			werr = wire.WriteOpenAI(&want, c, "  ")
		}
		if (serr == nil) != (werr == nil) || serr != nil && serr.Error() != werr.Error() || !bytes.Equal(streamed.Bytes(), want.Bytes()) {
			rt.Fatalf("streamed compile: %v\n%s\nwant %v\n%s", serr, streamed.Bytes(), werr, want.Bytes())
		}
	}
	checkWindow(ctx, rt, fresh, name, o, c, cerr)
	// Without a checkpoint: a chain of plain appends is read in pieces
	// (the never-compiled window), anything else compiled whole.
	piece := rapid.SampledFrom([]int{1, 2, 3, 0}).Draw(rt, "window piece")
	checkWindow(ctx, rt, tract.New(r.Store(), tract.Options{NoCheckpoints: true, WindowPiece: piece}), name, o, c, cerr)
	// The same window under a prune policy: the checkpoint's window
	// chooses as a whole compile does.
	if p := drawPrune(rt); p.Active() {
		po := o
		po.Prune = &p
		pc, perr := cold.CompileCold(ctx, name, po)
		checkWindow(ctx, rt, tract.New(r.Store(), tract.Options{}), name, po, pc, perr)
	}
	if o.At == "" {
		checkBehind(ctx, rt, r.Store(), name, o.Budget)
	}
	for _, x := range []struct {
		what string
		res  tract.Result
		err  error
	}{{"warm", w, werr}, {"checkpointed", f, ferr}} {
		if (x.err == nil) != (cerr == nil) || (x.err != nil && x.err.Error() != cerr.Error()) {
			rt.Fatalf("%s error %v, cold error %v", x.what, x.err, cerr)
		}
		if x.err != nil {
			continue
		}
		if len(x.res.Messages) == 0 && len(c.Messages) == 0 {
			x.res.Messages, c.Messages = nil, nil
		}
		if !reflect.DeepEqual(x.res, c) {
			rt.Fatalf("%s compile differs from cold:\n%s: %+v\ncold: %+v", x.what, x.what, x.res, c)
		}
	}
}

// childStep works in a spawned child: commits, merges it back, annotates.
func childStep(ctx context.Context, rt *rapid.T, r *tract.Repo, op, text string) error {
	name := fmt.Sprintf("kid%d", rapid.IntRange(0, 2).Draw(rt, "kid"))
	if _, err := r.Tract(ctx, name); err != nil {
		return nil
	}
	var err error
	switch op {
	case "child":
		_, err = r.Commit(ctx, name, tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "assistant", Text: text}})
	case "child-tool":
		// A child reusing its parent's call ids (and hostile names).
		id := rapid.SampledFrom([]string{"call0", "call1", "call.3/x"}).Draw(rt, "child call")
		fn := rapid.SampledFrom(hostileToolNames).Draw(rt, "child function")
		_, err = r.Commit(ctx, name, tract.CommitRequest{Content: tract.Content{Type: tract.TypeToolCall, ToolCalls: []tract.ToolCall{{ID: id, Name: fn}}}})
		if err == nil && rapid.Bool().Draw(rt, "child result") {
			_, err = r.Commit(ctx, name, tract.CommitRequest{Content: tract.Content{Type: tract.TypeToolResult, ToolCallID: id, Text: text}})
		}
	case "merge-from":
		var o tract.MergeFromOptions
		switch rapid.IntRange(0, 3).Draw(rt, "selection") {
		case 1:
			o.Roles = []string{"assistant"}
		case 2:
			o.Range = "HEAD~1..HEAD"
		case 3:
			o.Types = []tract.Type{tract.TypeToolCall, tract.TypeToolResult}
		}
		_, err = r.MergeFromWith(ctx, name, o)
		var ns *tract.NothingSelectedError
		if errors.Is(err, tract.ErrNotFound) || errors.As(err, &ns) {
			err = nil // HEAD~1 past the root; a selection that takes nothing
		}
	case "child-annotate":
		p := rapid.SampledFrom([]tract.Priority{tract.Skip, tract.Pinned}).Draw(rt, "priority")
		_, err = r.Annotate(ctx, name, name+":HEAD", p, "")
	}
	if errors.Is(err, tract.ErrNoCommits) {
		return nil
	}
	return err
}

// checkShortLog checks that a log of n entries (read newest first, a few
// rows) is the first n entries of the whole log, and that HEAD~k (read
// through skip pointers) is the kth first parent.
func checkShortLog(ctx context.Context, rt *rapid.T, r *tract.Repo, name string) {
	t, err := r.Tract(ctx, name)
	if err != nil {
		return
	}
	full, err := r.Log(ctx, name, tract.LogOptions{})
	if err != nil {
		rt.Fatalf("log %s: %v", name, err)
	}
	n := rapid.IntRange(1, len(full)+2).Draw(rt, "log -n")
	short, err := r.Log(ctx, name, tract.LogOptions{N: n})
	if err != nil {
		rt.Fatalf("log -n %d %s: %v", n, name, err)
	}
	want := full[:min(n, len(full))]
	if !reflect.DeepEqual(short, want) {
		rt.Fatalf("log -n %d of %s differs from the whole log's first entries:\nshort: %+v\nwhole: %+v", n, name, short, want)
	}
	skip := rapid.IntRange(0, len(full)+1).Draw(rt, "log --skip")
	page, err := r.Log(ctx, name, tract.LogOptions{N: n, Skip: skip})
	if err != nil {
		rt.Fatalf("log -n %d --skip %d %s: %v", n, skip, name, err)
	}
	if want := full[min(skip, len(full)):min(skip+n, len(full))]; !reflect.DeepEqual(page, want) {
		rt.Fatalf("log -n %d skip %d of %s is not that page of the whole log:\npage:  %+v\nwhole: %+v", n, skip, name, page, want)
	}
	// From a commit on HEAD's first-parent chain the log is the rest of
	// the whole log from that commit (how a page continues).
	if len(full) > 0 {
		var chain []int
		at := map[tract.Hash]int{}
		for i, e := range full {
			at[e.Hash] = i
		}
		for i, ok := 0, true; ok; {
			chain = append(chain, i)
			i, ok = -1, false
			if ps := full[chain[len(chain)-1]].Parents; len(ps) > 0 {
				i, ok = at[ps[0]]
			}
		}
		from := rapid.SampledFrom(chain).Draw(rt, "log from")
		rest, err := r.Log(ctx, name, tract.LogOptions{N: n, From: string(full[from].Hash)})
		if err != nil {
			rt.Fatalf("log -n %d %s from %s: %v", n, name, full[from].Hash, err)
		}
		if want := full[from:min(from+n, len(full))]; !reflect.DeepEqual(rest, want) {
			rt.Fatalf("log -n %d of %s from %s is not the whole log from there:\ngot:   %+v\nwhole: %+v", n, name, full[from].Hash.Short(), rest, want)
		}
	}
	if len(full) == 0 {
		return
	}
	head := full[0].Hash
	k := rapid.IntRange(0, 12).Draw(rt, "~k")
	h := head
	for i := 0; i < k && h != ""; i++ {
		c, err := r.Store().Commit(ctx, h)
		if err != nil {
			rt.Fatal(err)
		}
		h = ""
		if len(c.Parents) > 0 {
			h = c.Parents[0]
		}
	}
	got, err := r.Resolve(ctx, t, fmt.Sprintf("%s~%d", head, k))
	switch {
	case h == "" && !errors.Is(err, tract.ErrNotFound):
		rt.Fatalf("%s~%d past the root: got %s, %v; want not found", head.Short(), k, got, err)
	case h != "" && (err != nil || got != h):
		rt.Fatalf("%s~%d = %s, %v; want %s", head.Short(), k, got, err, h)
	}
}

// hostileToolNames are function names of tool calls the APIs refuse as
// they are (a space, a dot, non-ASCII letters, too long) beside valid ones.
var hostileToolNames = []string{"f", "g", "get weather", "do.it", "ünïcode", "名前", strings.Repeat("n", 65)}

// checkAPIFormats renders a tract's compile (whole and under a budget) in
// every API format and checks each against its API's rules: a request
// the API would refuse is never printed (an empty OpenAI one is refused
// with ErrEmptyContext instead).
func checkAPIFormats(ctx context.Context, rt *rapid.T, r *tract.Repo, name string, budget int) {
	if _, err := r.Tract(ctx, name); err != nil {
		return
	}
	res, err := r.Compile(ctx, name, tract.CompileOptions{Budget: budget})
	if err != nil {
		return // a budget below what is pinned
	}
	for _, c := range []struct {
		f        wire.Format
		validate func([]byte) error
	}{
		{wire.FormatOpenAI, ValidateOpenAI},
		{wire.FormatOpenAIRequest, ValidateOpenAIRequest},
		{wire.FormatAnthropic, ValidateAnthropic},
	} {
		out, err := wire.Render(res, c.f)
		if errors.Is(err, wire.ErrEmptyContext) && len(res.Messages) == 0 {
			continue
		}
		if err != nil {
			rt.Fatalf("%s format of %s: %v", c.f, name, err)
		}
		v, _ := out.JSON()
		data, err := json.Marshal(v)
		if err != nil {
			rt.Fatal(err)
		}
		if err := c.validate(data); err != nil {
			rt.Fatalf("%s format of %s refused: %v\n%s", c.f, name, err, data)
		}
	}
}
