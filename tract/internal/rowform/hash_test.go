package rowform

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/tokens"
	"github.com/agentlineage/lineage/tract"
	"github.com/google/go-cmp/cmp"
)

func TestRawRoundTrip(t *testing.T) {
	h := tract.Hash(strings.Repeat("0a", 32))
	if b := Raw(h); len(b) != 32 || Hash(b) != h {
		t.Fatalf("round trip: %x -> %s", b, Hash(b))
	}
	if Hash(nil) != "" {
		t.Error("empty bytes are not the empty hash")
	}
	if RawOrNil("") != nil || !bytes.Equal(RawOrNil(h), Raw(h)) {
		t.Error("RawOrNil is not nil for the empty hash and Raw otherwise")
	}
	if b := Raw("zz"); len(b) == 32 {
		t.Errorf("a non-hex hash encodes like a real one: %x", b)
	}
	hs := []tract.Hash{h, tract.Hash(strings.Repeat("ff", 32))}
	if diff := cmp.Diff(hs, Unpack(Pack(hs))); diff != "" {
		t.Errorf("pack/unpack (-want +got):\n%s", diff)
	}
}

func TestPrefixRange(t *testing.T) {
	lo, hi := PrefixRange("AB1")
	if len(lo) != 32 || len(hi) != 32 {
		t.Fatalf("lengths %d %d", len(lo), len(hi))
	}
	in := Raw(tract.Hash("ab1" + strings.Repeat("7", 61)))
	out := Raw(tract.Hash("ab2" + strings.Repeat("0", 61)))
	if bytes.Compare(in, lo) < 0 || bytes.Compare(in, hi) > 0 {
		t.Error("a hash with the prefix is outside the range")
	}
	if bytes.Compare(out, lo) >= 0 && bytes.Compare(out, hi) <= 0 {
		t.Error("a hash without the prefix is inside the range")
	}
	for _, bad := range []string{"xyz", strings.Repeat("a", 65)} {
		if lo, hi := PrefixRange(bad); lo != nil || hi != nil {
			t.Errorf("PrefixRange(%q) = %x, %x", bad, lo, hi)
		}
	}
}

func TestCommitsKeepsOrder(t *testing.T) {
	hist := []tract.HistoryCommit{{Commit: tract.Commit{Hash: "b"}}, {Commit: tract.Commit{Hash: "a"}, Blob: tract.Blob{Hash: "x"}}}
	if diff := cmp.Diff([]tract.Commit{{Hash: "b"}, {Hash: "a"}}, Commits(hist)); diff != "" {
		t.Errorf("Commits (-want +got):\n%s", diff)
	}
}

func TestTokenSlotsAreDistinct(t *testing.T) {
	seen := map[int]string{}
	for _, enc := range tokens.Encodings() {
		slot, ok := TokenSlot(enc)
		if !ok {
			continue
		}
		if slot < 0 || slot >= TokenSlots {
			t.Errorf("%s: slot %d out of range", enc, slot)
		}
		if other, dup := seen[slot]; dup {
			t.Errorf("%s and %s share slot %d", enc, other, slot)
		}
		seen[slot] = enc
	}
	if len(seen) != TokenSlots {
		t.Errorf("%d encodings have a slot, want %d", len(seen), TokenSlots)
	}
	if _, ok := TokenSlot("p50k_base"); ok {
		t.Error("an encoding without a column got a slot")
	}
}
