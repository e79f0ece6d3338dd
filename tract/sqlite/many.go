package sqlite

import (
	"context"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/tract"
)

// The reads of many tracts at once: a list of sessions reads every
// session's metadata in one query, not one query a session.

func idList(ids []string) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

func (r reader) TractsByID(ctx context.Context, ids []string) ([]tract.Tract, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := r.query(ctx, `SELECT `+tractCols+` FROM tracts WHERE id IN (SELECT value FROM json_each(?))`, idList(ids))
	if err != nil {
		return nil, err
	}
	return scanTracts(rows)
}

func (r reader) TractSettings(ctx context.Context, q tract.SettingsQuery) ([]tract.Setting, error) {
	if len(q.Tracts) == 0 {
		return nil, nil
	}
	// substr and length count characters alike, so the prefix test holds
	// for any text; "" keeps every key.
	rows, err := r.query(ctx, `SELECT tract, key, value FROM settings
	WHERE tract IN (SELECT value FROM json_each(?1)) AND substr(key, 1, length(?2)) = ?2
	ORDER BY tract, key`, idList(q.Tracts), q.Prefix)
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
