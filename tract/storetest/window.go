package storetest

import (
	"bytes"
	"context"
	"fmt"
	"reflect"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
	"pgregory.net/rapid"
)

// checkWindow compares a compile window (Repo.CompileWindow, read from
// the stored checkpoint when it serves the compile) with the same window
// cut from the cold compile c (or its error cerr): the figures, the
// window's messages, the first dropped ones and the messages handed to
// Head.
func checkWindow(ctx context.Context, rt *rapid.T, r *tract.Repo, name string, o tract.CompileOptions, c tract.Result, cerr error) {
	w := tract.WindowOptions{
		From:    rapid.IntRange(-1, len(c.Messages)+1).Draw(rt, "window from"),
		N:       rapid.IntRange(0, 6).Draw(rt, "window n"),
		Dropped: rapid.IntRange(0, 3).Draw(rt, "window dropped"),
	}
	headN := rapid.IntRange(0, len(c.Messages)+1).Draw(rt, "window head")
	w.Hashes = rapid.Bool().Draw(rt, "window hashes")
	w.HeadReadsAll = rapid.Bool().Draw(rt, "window head reads all")
	line := func(m *tract.Message) string {
		s := m.Role + ":" + m.Content
		if w.Hashes {
			s += fmt.Sprint(":", m.Commit, m.Summarizes)
		}
		return s
	}
	var head []string
	if headN > 0 {
		w.Head = func(m *tract.Message) bool {
			head = append(head, line(m))
			return len(head) < headN
		}
	}
	got, err := r.CompileWindow(ctx, name, o, w)
	if (err == nil) != (cerr == nil) || err != nil && err.Error() != cerr.Error() {
		rt.Fatalf("window error %v, cold error %v", err, cerr)
	}
	if err != nil {
		return
	}
	from := w.From
	if from < 0 || from >= len(c.Messages) {
		from = max(0, len(c.Messages)-w.N)
	}
	want := c
	want.Messages = c.Messages[from:min(len(c.Messages), from+w.N)]
	want.Dropped = c.Dropped[:min(len(c.Dropped), w.Dropped)]
	want.Pruned = c.Pruned[:min(len(c.Pruned), w.Dropped)]
	prunedTokens := 0
	for _, p := range c.Pruned {
		prunedTokens += p.Tokens
	}
	if got.PrunedCount != len(c.Pruned) || got.PrunedTokens != prunedTokens {
		rt.Fatalf("window pruned %d (%d tokens), want %d (%d)", got.PrunedCount, got.PrunedTokens, len(c.Pruned), prunedTokens)
	}
	if len(got.Pruned) == 0 && len(want.Pruned) == 0 {
		got.Pruned, want.Pruned = nil, nil
	}
	var wantHead []string
	for i := 0; i < min(headN, len(c.Messages)); i++ {
		wantHead = append(wantHead, line(&c.Messages[i]))
	}
	if got.Count != len(c.Messages) || got.From != from || got.DroppedCount != len(c.Dropped) {
		rt.Fatalf("window of %d from %d (%d dropped), want %d from %d (%d)", got.Count, got.From, got.DroppedCount, len(c.Messages), from, len(c.Dropped))
	}
	if len(got.Messages) == 0 && len(want.Messages) == 0 {
		got.Messages, want.Messages = nil, nil
	}
	if len(got.Dropped) == 0 && len(want.Dropped) == 0 && (got.Dropped == nil) == (want.Dropped == nil) {
		got.Dropped, want.Dropped = nil, nil
	}
	if !reflect.DeepEqual(got.Result, want) || !reflect.DeepEqual(head, wantHead) {
		rt.Fatalf("window %+v:\n%+v\nhead %q\nwant\n%+v\nhead %q", w, got.Result, head, want, wantHead)
	}
}

// checkBehind compiles name as of HEAD~1 and HEAD~2 from a fresh repo (the
// stored checkpoint serves a compile a few plain appends behind its head)
// cached, cold, streamed and windowed, and compares each with a compile
// from the history alone.
func checkBehind(ctx context.Context, rt *rapid.T, s tract.Store, name string, budget int) {
	// One ref behind and one diff a step: the steps draw them all.
	at := rapid.SampledFrom([]string{"HEAD~1", "HEAD~2"}).Draw(rt, "behind")
	{
		o := tract.CompileOptions{At: at, Budget: budget}
		c, cerr := tract.New(s, tract.Options{NoCheckpoints: true}).CompileCold(ctx, name, o)
		fresh := tract.New(s, tract.Options{})
		same := func(what string, got tract.Result, err error) {
			if (err == nil) != (cerr == nil) || err != nil && err.Error() != cerr.Error() {
				rt.Fatalf("--at %s %s: error %v, from the history %v", at, what, err, cerr)
			}
			if err != nil {
				return
			}
			if len(got.Messages) == 0 && len(c.Messages) == 0 {
				got.Messages, c.Messages = nil, nil
			}
			if !reflect.DeepEqual(got, c) {
				rt.Fatalf("--at %s %s:\n%+v\nfrom the history:\n%+v", at, what, got, c)
			}
		}
		got, err := fresh.CompileCold(ctx, name, o)
		same("cold", got, err)
		got, err = fresh.Compile(ctx, name, o)
		same("cached", got, err)
		var streamed, want bytes.Buffer
		serr := compileOpenAI(ctx, fresh, &streamed, name, o, "")
		werr := cerr
		if werr == nil {
			werr = wire.WriteOpenAI(&want, c, "")
		}
		if (serr == nil) != (werr == nil) || serr != nil && serr.Error() != werr.Error() || !bytes.Equal(streamed.Bytes(), want.Bytes()) {
			rt.Fatalf("--at %s streamed: %v\n%s\nwant %v\n%s", at, serr, streamed.Bytes(), werr, want.Bytes())
		}
		checkWindow(ctx, rt, fresh, name, o, c, cerr)
		for _, refs := range [][2]string{rapid.SampledFrom([][2]string{{at, "HEAD"}, {"HEAD", at}, {at, at}}).Draw(rt, "diff")} {
			want, werr := tract.New(s, tract.Options{NoCheckpoints: true}).Diff(ctx, name, refs[0], refs[1], "")
			got, err := tract.New(s, tract.Options{}).Diff(ctx, name, refs[0], refs[1], "")
			if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() || !reflect.DeepEqual(got, want) {
				rt.Fatalf("diff %s %s: %v\n%+v\nfrom the history: %v\n%+v", refs[0], refs[1], err, got, werr, want)
			}
		}
	}
}
