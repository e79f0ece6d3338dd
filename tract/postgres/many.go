package postgres

import (
	"context"

	"github.com/agentlineage/lineage/tract"
)

// The reads of many tracts at once: a list of sessions reads every
// session's metadata in one query, not one query a session.

func (r reader) TractsByID(ctx context.Context, ids []string) ([]tract.Tract, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := r.q.Query(ctx, `SELECT `+tractCols+` FROM tracts WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	return scanTracts(rows)
}

func (r reader) TractSettings(ctx context.Context, q tract.SettingsQuery) ([]tract.Setting, error) {
	if len(q.Tracts) == 0 {
		return nil, nil
	}
	rows, err := r.q.Query(ctx, `SELECT tract, key, value FROM settings
	WHERE tract = ANY($1) AND starts_with(key, $2) ORDER BY tract, key`, q.Tracts, q.Prefix)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tract.Setting
	for rows.Next() {
		var s tract.Setting
		if err := rows.Scan(&s.Tract, &s.Key, &s.Value); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
