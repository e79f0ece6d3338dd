package sqlite

import "github.com/agentlineage/lineage/tract"

// hb, hs and the rest are tract's raw hash form under short names.
func hb(h tract.Hash) []byte               { return h.Bytes() }
func hs(b []byte) tract.Hash               { return tract.HashFromBytes(b) }
func packHashes(h []tract.Hash) []byte     { return tract.PackHashes(h) }
func unpackHashes(b []byte) []tract.Hash   { return tract.UnpackHashes(b) }
func prefixRange(p string) (lo, hi []byte) { return tract.HashPrefixRange(p) }

// nullHash is hb, or NULL for the empty hash.
func nullHash(h tract.Hash) any {
	if h == "" {
		return nil
	}
	return hb(h)
}
