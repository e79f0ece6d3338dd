package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"pgregory.net/rapid"
)

func init() {
	suites = append(suites, []testCase{
		{"ChildStartsWithParentContext", testChildStartsWithParent},
	})
}

// spawnTree is the state of a random spawn/merge-from tree.
type spawnTree struct {
	ctx    context.Context
	r      *tract.Repo
	names  []string
	parent map[string]string // child → spawn parent
	mode   map[string]tract.SpawnMode
	spawn  map[string]tract.Hash // child → parent's head at the spawn
	seeds  map[tract.Hash]string // seed commit → its tract
}

// testChildStartsWithParent builds random trees of tracts — spawns of
// every mode from any tract (nested), commits, selective and full
// merge-froms, the parent annotating what it merged, edits of a tract's
// own commits — and checks after every step that each reference child's
// compile starts with exactly its parent's compile at the spawn point,
// and that a spawn seed renders only in its own tract and the tracts
// that see it through their own spawn point by reference.
func testChildStartsWithParent(t *testing.T, newStore Factory) {
	rapid.Check(t, func(rt *rapid.T) {
		s := newStore(t)
		defer s.Close()
		clk := newClock()
		st := &spawnTree{ctx: context.Background(), r: tract.New(s, tract.Options{Now: clk.Now}),
			names: []string{"main"}, parent: map[string]string{}, mode: map[string]tract.SpawnMode{},
			spawn: map[string]tract.Hash{}, seeds: map[tract.Hash]string{}}
		if _, _, err := st.r.Init(st.ctx); err != nil {
			rt.Fatal(err)
		}
		steps := rapid.IntRange(1, 30).Draw(rt, "steps")
		for i := range steps {
			op := rapid.SampledFrom([]string{"commit", "commit", "commit", "spawn", "spawn", "merge-from", "merge-from", "annotate", "edit"}).Draw(rt, "op")
			if err := st.step(rt, op, i); err != nil {
				rt.Fatalf("step %d %s: %v", i, op, err)
			}
			st.check(rt)
		}
	})
}

func (st *spawnTree) step(rt *rapid.T, op string, i int) error {
	name := rapid.SampledFrom(st.names).Draw(rt, "tract")
	text := fmt.Sprintf("%s %d", op, i)
	switch op {
	case "commit":
		typ, role := tract.TypeMessage, rapid.SampledFrom([]string{"user", "assistant"}).Draw(rt, "role")
		if rapid.IntRange(0, 4).Draw(rt, "instruction") == 0 {
			typ, role = tract.TypeInstruction, ""
		}
		_, err := st.r.Commit(st.ctx, name, tract.CommitRequest{Content: tract.Content{Type: typ, Role: role, Text: text}})
		return err
	case "spawn":
		child := fmt.Sprintf("t%d", i)
		mode := rapid.SampledFrom([]tract.SpawnMode{tract.SpawnReference, tract.SpawnReference, tract.SpawnSnapshot, tract.SpawnEmpty}).Draw(rt, "mode")
		_, head, err := st.r.Head(st.ctx, name)
		if err != nil {
			return err
		}
		if _, err := st.r.Spawn(st.ctx, name, child, tract.SpawnOptions{Purpose: "purpose " + child, Mode: mode}); err != nil {
			return err
		}
		st.names = append(st.names, child)
		st.parent[child], st.mode[child], st.spawn[child] = name, mode, head.Commit
		if mode != tract.SpawnReference {
			_, seed, err := st.r.Head(st.ctx, child)
			if err != nil {
				return err
			}
			st.seeds[seed.Commit] = child
		}
		return nil
	case "merge-from":
		if st.parent[name] == "" {
			return nil
		}
		var o tract.MergeFromOptions
		switch rapid.IntRange(0, 3).Draw(rt, "selection") {
		case 1:
			o.Roles = []string{"assistant"}
		case 2:
			o.Range = "HEAD~1..HEAD"
		case 3:
			o.Types = []tract.Type{tract.TypeInstruction}
		}
		_, err := st.r.MergeFromWith(st.ctx, name, o)
		var ve *tract.ValidationError
		if errors.Is(err, tract.ErrNoCommits) || errors.Is(err, tract.ErrNotFound) || errors.As(err, &ve) {
			return nil // nothing to merge, HEAD~1 past the root, nothing selected
		}
		return err
	case "annotate", "edit":
		return st.decide(rt, op, name, text)
	}
	return fmt.Errorf("unknown op %s", op)
}

// decide annotates, in name's compile, a message of name or of a tract
// spawned from it (never one name sees through its spawn point: that one
// is the parent's to decide), or edits one of name's own messages.
func (st *spawnTree) decide(rt *rapid.T, op, name, text string) error {
	res, err := st.r.CompileCold(st.ctx, name, tract.CompileOptions{})
	if errors.Is(err, tract.ErrNoCommits) {
		return nil
	}
	if err != nil {
		return err
	}
	var mine []tract.Message
	for _, m := range res.Messages {
		if _, seed := st.seeds[m.Commit]; seed {
			continue
		}
		if m.Tract == name || (op == "annotate" && st.descends(m.Tract, name)) {
			mine = append(mine, m)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	m := rapid.SampledFrom(mine).Draw(rt, "message")
	if op == "edit" {
		_, err := st.r.Edit(st.ctx, name, string(m.Commit), text, "")
		return err
	}
	p := rapid.SampledFrom([]tract.Priority{tract.Skip, tract.Important, tract.Normal}).Draw(rt, "priority")
	_, err = st.r.Annotate(st.ctx, name, string(m.Commit), p, "")
	return err
}

// descends reports whether tract a was spawned, directly or not, from b.
func (st *spawnTree) descends(a, b string) bool {
	for p := st.parent[a]; p != ""; p = st.parent[p] {
		if p == b {
			return true
		}
	}
	return false
}

// seesByReference reports whether viewer sees author's history through
// a chain of reference spawns.
func (st *spawnTree) seesByReference(viewer, author string) bool {
	for t := viewer; st.mode[t] == tract.SpawnReference && st.parent[t] != ""; t = st.parent[t] {
		if st.parent[t] == author {
			return true
		}
	}
	return false
}

func (st *spawnTree) check(rt *rapid.T) {
	compiled := map[string]tract.Result{}
	for _, name := range st.names {
		res, err := st.r.Compile(st.ctx, name, tract.CompileOptions{})
		if err != nil {
			rt.Fatalf("compile %s: %v", name, err)
		}
		cold, err := st.r.CompileCold(st.ctx, name, tract.CompileOptions{})
		if err != nil {
			rt.Fatalf("cold compile %s: %v", name, err)
		}
		if a, b := texts(res), texts(cold); a != b {
			rt.Fatalf("%s: warm compile differs from cold:\n%s\ncold:\n%s", name, a, b)
		}
		compiled[name] = cold
		for _, m := range cold.Messages {
			if owner, seed := st.seeds[m.Commit]; seed && owner != name && !st.seesByReference(name, owner) {
				rt.Fatalf("%s renders the seed of %s (%s): %q", name, owner, m.Commit.Short(), m.Content)
			}
		}
	}
	for _, child := range st.names {
		if st.mode[child] != tract.SpawnReference || st.spawn[child] == "" {
			continue
		}
		parent := st.parent[child]
		at, err := st.r.CompileCold(st.ctx, parent, tract.CompileOptions{At: string(st.spawn[child])})
		if err != nil {
			rt.Fatalf("compile %s at %s: %v", parent, st.spawn[child].Short(), err)
		}
		got := compiled[child].Messages
		if len(got) < len(at.Messages) {
			rt.Fatalf("%s has %d messages, its parent %s had %d at the spawn:\n%s\nparent:\n%s", child, len(got), parent, len(at.Messages), texts(compiled[child]), texts(at))
		}
		for k, want := range at.Messages {
			g := got[k]
			if g.Commit != want.Commit || g.Content != want.Content || g.Role != want.Role || g.Priority != want.Priority || g.Tract != want.Tract || g.Tokens != want.Tokens {
				rt.Fatalf("%s's message %d is %s %s %q (%s), its parent %s's at the spawn %s %s %q (%s):\n%s\nparent:\n%s", child, k,
					g.Commit.Short(), g.Tract, g.Content, g.Priority, parent, want.Commit.Short(), want.Tract, want.Content, want.Priority, texts(compiled[child]), texts(at))
			}
		}
	}
}
