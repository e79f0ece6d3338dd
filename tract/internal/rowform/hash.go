package rowform

import (
	"encoding/hex"
	"strings"

	"github.com/agentlineage/lineage/tract"
)

// Stores keep hashes as their 32 raw bytes: half the size of hex and
// compared with memcmp, which keeps B-trees of random keys small and fast.

// Raw is h's raw form. A string that is not a hex hash becomes a key no
// stored hash can equal.
func Raw(h tract.Hash) []byte {
	if b, err := hex.DecodeString(string(h)); err == nil {
		return b
	}
	return append([]byte{0xff, 0xff}, h...)
}

// RawOrNil is Raw, or nil (a NULL column) for the empty hash.
func RawOrNil(h tract.Hash) []byte {
	if h == "" {
		return nil
	}
	return Raw(h)
}

// Hash decodes a stored raw hash; empty input is the empty hash.
func Hash(b []byte) tract.Hash {
	if len(b) == 0 {
		return ""
	}
	return tract.Hash(hex.EncodeToString(b))
}

// Pack concatenates the raw forms of hashes (a parents column).
func Pack(hashes []tract.Hash) []byte {
	out := make([]byte, 0, 32*len(hashes))
	for _, h := range hashes {
		out = append(out, Raw(h)...)
	}
	return out
}

// Unpack splits a Pack value.
func Unpack(b []byte) []tract.Hash {
	out := make([]tract.Hash, 0, len(b)/32)
	for len(b) >= 32 {
		out = append(out, Hash(b[:32]))
		b = b[32:]
	}
	return out
}

// PrefixRange is the inclusive range of raw keys whose hex form starts with
// prefix; nil, nil when prefix is not hex or too long.
func PrefixRange(prefix string) (lo, hi []byte) {
	prefix = strings.ToLower(prefix)
	if len(prefix) > 64 {
		return nil, nil
	}
	lo, err := hex.DecodeString(prefix + strings.Repeat("0", 64-len(prefix)))
	if err != nil {
		return nil, nil
	}
	hi, _ = hex.DecodeString(prefix + strings.Repeat("f", 64-len(prefix)))
	return lo, hi
}
