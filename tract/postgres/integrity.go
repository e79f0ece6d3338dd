package postgres

import (
	"context"
	"fmt"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/internal/rowform"
)

var _ tract.IntegrityChecker = (*Store)(nil)

// CheckIntegrity runs amcheck's bt_index_check on every B-tree index of
// the store's tables where the amcheck extension is installed (it needs a
// superuser to install, so it is used, never created), and finds negative
// token counts.
func (s *Store) CheckIntegrity(ctx context.Context) ([]tract.Damage, error) {
	var out []tract.Damage
	where := fmt.Sprintf("%s@%s:%d/%s", s.cfg.ConnConfig.User, s.cfg.ConnConfig.Host, s.cfg.ConnConfig.Port, s.cfg.ConnConfig.Database)
	var amcheck bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'amcheck')`).Scan(&amcheck); err != nil {
		return nil, err
	}
	if amcheck {
		rows, err := s.pool.Query(ctx, `SELECT c.relname FROM pg_index i
			JOIN pg_class c ON c.oid = i.indexrelid
			JOIN pg_am am ON am.oid = c.relam
			JOIN pg_class t ON t.oid = i.indrelid
			WHERE am.amname = 'btree' AND t.relnamespace = current_schema()::regnamespace
			AND t.relname IN ('tracts', 'blobs', 'commits', 'merge_parents', 'refs', 'reflog', 'annotations', 'settings', 'compiled_views', 'compiled_view_pieces')
			ORDER BY c.relname`)
		if err != nil {
			return nil, err
		}
		var indexes []string
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				rows.Close()
				return nil, err
			}
			indexes = append(indexes, name)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		for _, ix := range indexes {
			if _, err := s.pool.Exec(ctx, `SELECT bt_index_check($1::regclass)`, ix); err != nil {
				out = append(out, tract.Damage{Kind: "database", Object: where, Detail: "amcheck of index " + ix + ": " + err.Error()})
			}
		}
	}
	rows, err := s.pool.Query(ctx, `SELECT hash FROM blobs b WHERE tokens_o200k < 0 OR tokens_cl100k < 0
		OR (tokens IS NOT NULL AND jsonb_typeof(tokens) = 'object' AND EXISTS (
			SELECT 1 FROM jsonb_each(b.tokens) e WHERE jsonb_typeof(e.value) <> 'number' OR (e.value)::text::numeric < 0))`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var h []byte
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out = append(out, tract.Damage{Kind: "tokens", Object: string(rowform.Hash(h)), Detail: "token count is negative or not a number"})
	}
	return out, rows.Err()
}
