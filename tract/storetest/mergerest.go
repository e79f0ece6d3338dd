package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"pgregory.net/rapid"
)

func init() {
	suites = append(suites, []testCase{
		{"SelectiveMergesNeverConsume", testSelectiveMergesNeverConsume},
	})
}

// restModel is what a parent has merged of one child, as the issue
// states it: the merged set is what was selected, not the child's head.
type restModel struct {
	commits []tract.Hash // the child's work, oldest first
	roles   []string
	merged  map[tract.Hash]bool
}

// testSelectiveMergesNeverConsume compares random sequences of selective
// merge-froms (ranges, roles, types, tags), with the child working in
// between, against a model: each merge takes, of the child's commits up to
// the range's end not merged yet, those its selection names; an empty
// selection is refused and stores nothing; each merge stores one commit
// and no blob; the parent's compile holds exactly the merged child commits,
// each once; a last plain merge-from takes the rest, so every child commit
// ends merged exactly once. The store then survives export and import
// with the same compile.
func testSelectiveMergesNeverConsume(t *testing.T, newStore Factory) {
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		s := newStore(t)
		defer s.Close()
		clk := newClock()
		r := tract.New(s, tract.Options{Now: clk.Now})
		if _, _, err := r.Init(ctx); err != nil {
			rt.Fatal(err)
		}
		if _, err := r.Commit(ctx, "main", message("user", "question")); err != nil {
			rt.Fatal(err)
		}
		if _, err := r.Spawn(ctx, "main", "kid", tract.SpawnOptions{Purpose: "p"}); err != nil {
			rt.Fatal(err)
		}
		m := &restModel{merged: map[tract.Hash]bool{}}
		steps := rapid.IntRange(1, 12).Draw(rt, "steps")
		for i := range steps {
			if len(m.commits) == 0 || rapid.Bool().Draw(rt, "work") {
				role := rapid.SampledFrom([]string{"user", "assistant"}).Draw(rt, "role")
				c, err := r.Commit(ctx, "kid", message(role, fmt.Sprint("k", i)))
				if err != nil {
					rt.Fatal(err)
				}
				m.commits, m.roles = append(m.commits, c.Hash), append(m.roles, role)
				continue
			}
			m.merge(ctx, rt, s, r, false)
		}
		m.merge(ctx, rt, s, r, true)
		for _, h := range m.commits {
			if !m.merged[h] {
				rt.Fatalf("after the last merge %s is not merged", h.Short())
			}
		}
		var buf bytes.Buffer
		if _, err := r.Export(ctx, &buf, tract.ExportOptions{All: true}); err != nil {
			rt.Fatal(err)
		}
		to := newStore(t)
		defer to.Close()
		r2 := tract.New(to, tract.Options{Now: clk.Now})
		if _, err := importBytes(r2, buf.Bytes()); err != nil {
			rt.Fatal(err)
		}
		a, err := r.CompileCold(ctx, "main", tract.CompileOptions{})
		if err != nil {
			rt.Fatal(err)
		}
		b, err := r2.CompileCold(ctx, "main", tract.CompileOptions{})
		if err != nil || texts(a) != texts(b) {
			rt.Fatalf("compile after export and import:\n%s\nwant:\n%s%v", texts(b), texts(a), err)
		}
	})
}

// merge draws a selection (none with last), merges, and checks the result
// against the model.
func (m *restModel) merge(ctx context.Context, rt *rapid.T, s tract.Store, r *tract.Repo, last bool) {
	n := len(m.commits)
	var o tract.MergeFromOptions
	lo, hi := 0, n-1
	if !last {
		if rapid.Bool().Draw(rt, "ranged") {
			hi = rapid.IntRange(0, n-1).Draw(rt, "to")
			lo = rapid.IntRange(0, hi).Draw(rt, "from")
			o.Range = string(m.commits[lo]) + ".." + string(m.commits[hi])
		}
		switch rapid.IntRange(0, 3).Draw(rt, "filter") {
		case 1:
			o.Roles = []string{rapid.SampledFrom([]string{"user", "assistant"}).Draw(rt, "select role")}
		case 2:
			o.Types = []tract.Type{rapid.SampledFrom([]tract.Type{tract.TypeMessage, tract.TypeToolCall}).Draw(rt, "select type")}
		case 3:
			k := rapid.IntRange(0, n-1).Draw(rt, "tagged")
			name := fmt.Sprintf("t%d", k)
			if _, err := r.CreateTag(ctx, "kid", name, string(m.commits[k])); err != nil && !errors.Is(err, tract.ErrExists) {
				rt.Fatal(err)
			}
			o.Tags = []string{name}
		}
	}
	var offered, take []tract.Hash
	for i := 0; i <= hi; i++ {
		h := m.commits[i]
		if m.merged[h] {
			continue
		}
		offered = append(offered, h)
		if i >= lo && (len(o.Roles) == 0 || o.Roles[0] == m.roles[i]) && (len(o.Types) == 0 || o.Types[0] == tract.TypeMessage) &&
			(len(o.Tags) == 0 || o.Tags[0] == fmt.Sprintf("t%d", i)) {
			take = append(take, h)
		}
	}
	commits, blobs := rowCounts(ctx, rt, s)
	res, err := r.MergeFromWith(ctx, "kid", o)
	c2, b2 := rowCounts(ctx, rt, s)
	var ns *tract.NothingSelectedError
	switch {
	case len(take) == 0 && len(offered) == 0 && err == nil && res.Kind == tract.MergeUpToDate:
	case len(take) == 0 && len(offered) > 0 && errors.As(err, &ns):
	case len(take) > 0 && err == nil && res.Kind == tract.MergeCommit:
	default:
		rt.Fatalf("merge-from %+v: %+v, %v; the model takes %d of %d offered", o, res, err, len(take), len(offered))
	}
	wantCommits := commits
	if len(take) > 0 {
		wantCommits++
	}
	if c2 != wantCommits || b2 != blobs {
		rt.Fatalf("merge-from %+v stored %d commits and %d blobs, want %d and 0", o, c2-commits, b2-blobs, wantCommits-commits)
	}
	for _, h := range take {
		m.merged[h] = true
	}
	m.checkRendered(ctx, rt, r)
}

// checkRendered checks that the parent renders exactly the merged child
// commits, each once, warm as cold.
func (m *restModel) checkRendered(ctx context.Context, rt *rapid.T, r *tract.Repo) {
	res2, err := r.CompileCold(ctx, "main", tract.CompileOptions{})
	if err != nil {
		rt.Fatal(err)
	}
	warm, err := r.Compile(ctx, "main", tract.CompileOptions{})
	if err != nil || texts(warm) != texts(res2) {
		rt.Fatalf("warm compile differs from cold:\n%s\ncold:\n%s%v", texts(warm), texts(res2), err)
	}
	seen := map[tract.Hash]int{}
	for _, msg := range res2.Messages {
		if msg.Tract == "kid" {
			seen[msg.Commit]++
		}
	}
	for _, h := range m.commits {
		want := 0
		if m.merged[h] {
			want = 1
		}
		if seen[h] != want {
			rt.Fatalf("%s renders %d times in the parent, want %d:\n%s", h.Short(), seen[h], want, texts(res2))
		}
	}
	if len(seen) != len(m.merged) {
		rt.Fatalf("the parent renders %d child commits, the model merged %d", len(seen), len(m.merged))
	}
}

func rowCounts(ctx context.Context, rt *rapid.T, s tract.Store) (commits, blobs int) {
	if err := s.ScanCommits(ctx, func(tract.Commit) error { commits++; return nil }); err != nil {
		rt.Fatal(err)
	}
	if err := s.ScanBlobs(ctx, func(tract.Blob) error { blobs++; return nil }); err != nil {
		rt.Fatal(err)
	}
	return commits, blobs
}
