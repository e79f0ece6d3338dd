package sqlite

import (
	"context"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
)

var _ tract.IntegrityChecker = (*Store)(nil)

// CheckIntegrity runs SQLite's integrity_check (every page, index and
// constraint of the file) and finds negative token counts.
func (s *Store) CheckIntegrity(ctx context.Context) ([]tract.Damage, error) {
	var out []tract.Damage
	rows, err := s.db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return []tract.Damage{{Kind: "database", Object: s.path, Detail: "integrity_check: " + err.Error()}}, nil
	}
	for rows.Next() {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			rows.Close()
			return nil, err
		}
		if msg != "ok" {
			out = append(out, tract.Damage{Kind: "database", Object: s.path, Detail: "integrity_check: " + msg})
		}
	}
	if err := rows.Err(); err != nil {
		out = append(out, tract.Damage{Kind: "database", Object: s.path, Detail: "integrity_check: " + err.Error()})
	}
	rows.Close()
	neg, err := s.db.QueryContext(ctx, `SELECT hash FROM blobs b WHERE tokens_o200k < 0 OR tokens_cl100k < 0
		OR (tokens IS NOT NULL AND json_valid(tokens) AND EXISTS (SELECT 1 FROM json_each(b.tokens) WHERE value < 0 OR type NOT IN ('integer')))`)
	if err != nil {
		return append(out, tract.Damage{Kind: "database", Object: s.path, Detail: err.Error()}), nil
	}
	defer neg.Close()
	for neg.Next() {
		var h []byte
		if err := neg.Scan(&h); err != nil {
			return nil, err
		}
		out = append(out, tract.Damage{Kind: "tokens", Object: string(rowform.Hash(h)), Detail: "token count is negative or not a number"})
	}
	return out, neg.Err()
}
