package tract

import (
	"encoding/hex"
	"strings"
)

// Stores keep hashes as their 32 raw bytes: half the size of hex and
// compared with memcmp, which keeps B-trees of random keys small and fast.
// These functions are that binary form, shared by every backend.

// Bytes is the hash's raw form. A string that is not a hex hash becomes a
// key no stored hash can equal.
func (h Hash) Bytes() []byte {
	if b, err := hex.DecodeString(string(h)); err == nil {
		return b
	}
	return append([]byte{0xff, 0xff}, h...)
}

// HashFromBytes decodes a stored raw hash; empty input is the empty hash.
func HashFromBytes(b []byte) Hash {
	if len(b) == 0 {
		return ""
	}
	return Hash(hex.EncodeToString(b))
}

// PackHashes concatenates the raw forms of hashes (a parents column).
func PackHashes(hashes []Hash) []byte {
	out := make([]byte, 0, 32*len(hashes))
	for _, h := range hashes {
		out = append(out, h.Bytes()...)
	}
	return out
}

// UnpackHashes splits a PackHashes value.
func UnpackHashes(b []byte) []Hash {
	out := make([]Hash, 0, len(b)/32)
	for len(b) >= 32 {
		out = append(out, HashFromBytes(b[:32]))
		b = b[32:]
	}
	return out
}

// HashPrefixRange is the inclusive range of raw keys whose hex form starts
// with prefix; nil, nil when prefix is not hex or too long.
func HashPrefixRange(prefix string) (lo, hi []byte) {
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
