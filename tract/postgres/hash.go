package postgres

import (
	"encoding/hex"
	"strings"

	"github.com/agentlineage/lineage/tract"
)

// Hashes are stored as 32 raw bytes: half the size of hex, compared with
// memcmp, which keeps the B-trees of random keys small and fast.

// hb encodes a hash for a query. A string that is not a hex hash becomes a
// key no stored hash can equal.
func hb(h tract.Hash) []byte {
	if b, err := hex.DecodeString(string(h)); err == nil {
		return b
	}
	return append([]byte{0xff, 0xff}, h...)
}

// nullHash is hb, or NULL (nil) for the empty hash.
func nullHash(h tract.Hash) []byte {
	if h == "" {
		return nil
	}
	return hb(h)
}

// hs decodes a stored hash.
func hs(b []byte) tract.Hash {
	if len(b) == 0 {
		return ""
	}
	return tract.Hash(hex.EncodeToString(b))
}

// packHashes concatenates hashes (the parents column).
func packHashes(hashes []tract.Hash) []byte {
	out := make([]byte, 0, 32*len(hashes))
	for _, h := range hashes {
		out = append(out, hb(h)...)
	}
	return out
}

func unpackHashes(b []byte) []tract.Hash {
	out := make([]tract.Hash, 0, len(b)/32)
	for len(b) >= 32 {
		out = append(out, hs(b[:32]))
		b = b[32:]
	}
	return out
}

// prefixRange is the inclusive range of 32-byte keys whose hex starts with
// prefix (nil when prefix is not hex).
func prefixRange(prefix string) (lo, hi []byte) {
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
