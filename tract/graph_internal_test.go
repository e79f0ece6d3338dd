package tract

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestJumpDepth checks the closed form against the skew-binary rule it
// stands for: a commit jumps to its parent's jump's jump when the parent's
// two jumps span equal distances, else to its parent.
func TestJumpDepth(t *testing.T) {
	rule := []int64{0, 0}
	for d := int64(2); d < 100000; d++ {
		p := d - 1
		a := rule[p]
		b := rule[a]
		want := p
		if p-a == a-b {
			want = b
		}
		rule = append(rule, want)
		if got := jumpDepth(d); got != want {
			t.Fatalf("jumpDepth(%d) = %d, want %d", d, got, want)
		}
	}
	if jumpDepth(0) != 0 || jumpDepth(1) != 0 {
		t.Fatalf("roots jump to depth 0")
	}
}

// TestPlacerAnyOrder: fed a random DAG children first (every parent read
// through Stored), Placer gives each commit the position its definition
// says — generation, first-parent depth, a jump to the first-parent
// ancestor at jumpDepth — and reads each commit at most once.
func TestPlacerAnyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 3000
	hashes := make([]Hash, n)
	parents := map[Hash][]Hash{}
	for i := range hashes {
		hashes[i] = Hash(fmt.Sprintf("c%07d", i))
		if i == 0 || rng.IntN(50) == 0 {
			continue // a root
		}
		ps := []Hash{hashes[i-1-rng.IntN(min(i, 3))]}
		if rng.IntN(5) == 0 {
			if p := hashes[rng.IntN(i)]; p != ps[0] {
				ps = append(ps, p)
			}
		}
		parents[hashes[i]] = ps
	}
	reads := map[Hash]int{}
	pl := &Placer{Stored: func(h Hash) ([]Hash, Position, error) {
		reads[h]++
		return parents[h], Position{}, nil
	}}
	got := map[Hash]Position{}
	for i := n - 1; i >= 0; i-- {
		p, err := pl.Place(hashes[i], parents[hashes[i]], Position{})
		if err != nil {
			t.Fatal(err)
		}
		got[hashes[i]] = p
	}
	for h, k := range reads {
		if k > 1 {
			t.Fatalf("commit %s read %d times", h, k)
		}
	}
	for _, h := range hashes {
		p, ps := got[h], parents[h]
		wantGen, wantDepth := int64(1), int64(0)
		for _, q := range ps {
			wantGen = max(wantGen, got[q].Gen+1)
		}
		if len(ps) > 0 {
			wantDepth = got[ps[0]].Depth + 1
		}
		if p.Gen != wantGen || p.Depth != wantDepth {
			t.Fatalf("%s: gen %d depth %d, want %d %d", h, p.Gen, p.Depth, wantGen, wantDepth)
		}
		// The jump is the first-parent ancestor at jumpDepth(depth).
		anc := h
		for d := p.Depth; d > jumpDepth(p.Depth); d-- {
			anc = parents[anc][0]
		}
		if p.Depth == 0 && p.Jump != "" || p.Depth > 0 && p.Jump != anc {
			t.Fatalf("%s at depth %d: jump %s, want %s", h, p.Depth, p.Jump, anc)
		}
	}
}

// TestPlacerCycle: a damaged store whose parents form a cycle is an error,
// not a hang.
func TestPlacerCycle(t *testing.T) {
	parents := map[Hash][]Hash{"a": {"b"}, "b": {"c"}, "c": {"a"}}
	pl := &Placer{Stored: func(h Hash) ([]Hash, Position, error) { return parents[h], Position{}, nil }}
	if _, err := pl.Place("a", parents["a"], Position{}); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("got %v, want a cycle error", err)
	}
}
