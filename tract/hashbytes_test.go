package tract

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHashBytesRoundTrip(t *testing.T) {
	h := Hash(strings.Repeat("0a", 32))
	if b := h.Bytes(); len(b) != 32 || HashFromBytes(b) != h {
		t.Fatalf("round trip: %x -> %s", b, HashFromBytes(b))
	}
	if HashFromBytes(nil) != "" {
		t.Error("empty bytes are not the empty hash")
	}
	if b := Hash("zz").Bytes(); len(b) == 32 {
		t.Errorf("a non-hex hash encodes like a real one: %x", b)
	}
	hs := []Hash{h, Hash(strings.Repeat("ff", 32))}
	if diff := cmp.Diff(hs, UnpackHashes(PackHashes(hs))); diff != "" {
		t.Errorf("pack/unpack (-want +got):\n%s", diff)
	}
}

func TestHashPrefixRange(t *testing.T) {
	lo, hi := HashPrefixRange("AB1")
	if len(lo) != 32 || len(hi) != 32 {
		t.Fatalf("lengths %d %d", len(lo), len(hi))
	}
	in := Hash("ab1" + strings.Repeat("7", 61)).Bytes()
	out := Hash("ab2" + strings.Repeat("0", 61)).Bytes()
	if bytes.Compare(in, lo) < 0 || bytes.Compare(in, hi) > 0 {
		t.Error("a hash with the prefix is outside the range")
	}
	if bytes.Compare(out, lo) >= 0 && bytes.Compare(out, hi) <= 0 {
		t.Error("a hash without the prefix is inside the range")
	}
	for _, bad := range []string{"xyz", strings.Repeat("a", 65)} {
		if lo, hi := HashPrefixRange(bad); lo != nil || hi != nil {
			t.Errorf("HashPrefixRange(%q) = %x, %x", bad, lo, hi)
		}
	}
}
