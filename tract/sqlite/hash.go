package sqlite

import "github.com/agentlineage/lineage/tract"

// hb, hs and the rest are tract's raw hash form under short names.
func hb(h tract.Hash) []byte               { return h.Bytes() }
func hs(b []byte) tract.Hash               { return tract.HashFromBytes(b) }
func packHashes(h []tract.Hash) []byte     { return tract.PackHashes(h) }
func unpackHashes(b []byte) []tract.Hash   { return tract.UnpackHashes(b) }
func prefixRange(p string) (lo, hi []byte) { return tract.HashPrefixRange(p) }

// posColumns are the gen, depth and jump columns of p (NULL when unknown).
func posColumns(p tract.Position) (gen, depth, jump any) {
	if !p.Known() {
		return nil, nil, nil
	}
	return p.Gen, p.Depth, nullHash(p.Jump)
}

// nullHash is hb, or NULL for the empty hash.
func nullHash(h tract.Hash) any {
	if h == "" {
		return nil
	}
	return hb(h)
}
