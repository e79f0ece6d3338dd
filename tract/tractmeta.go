package tract

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Tract metadata: what a tract says about itself beside its history, as
// key/value text (an imported session's title, working directory, model).
// It is kept as the tract's settings under the prefix "meta.", so a store
// needs nothing new; it is not hashed, not exported and never compiled.

// metaPrefix marks a setting that is tract metadata, not configuration.
const metaPrefix = "meta."

// MaxTractMetaBytes bounds one metadata value.
const MaxTractMetaBytes = 64 << 10

// TractMeta is one metadata entry of a tract.
type TractMeta struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// TractMeta lists a tract's metadata sorted by key.
func (r *Repo) TractMeta(ctx context.Context, tractName string) ([]TractMeta, error) {
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return nil, err
	}
	return ReadTractMeta(ctx, r.store, t.ID)
}

// ReadTractMeta lists the metadata of the tract with id tractID, sorted by
// key, from any reader (a transaction included).
func ReadTractMeta(ctx context.Context, rd Finder, tractID string) ([]TractMeta, error) {
	settings, err := rd.Settings(ctx, tractID)
	if err != nil {
		return nil, err
	}
	var out []TractMeta
	for _, s := range settings {
		if k, ok := strings.CutPrefix(s.Key, metaPrefix); ok {
			out = append(out, TractMeta{Key: k, Value: s.Value})
		}
	}
	slices.SortFunc(out, func(a, b TractMeta) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// ReadTractsMeta reads the metadata of the tracts with the given ids in
// one store read: tract id → entries sorted by key (a tract without
// metadata has no entry).
func ReadTractsMeta(ctx context.Context, rd Finder, ids []string) (map[string][]TractMeta, error) {
	settings, err := rd.TractSettings(ctx, SettingsQuery{Tracts: ids, Prefix: metaPrefix})
	if err != nil {
		return nil, err
	}
	out := map[string][]TractMeta{}
	for _, s := range settings {
		if k, ok := strings.CutPrefix(s.Key, metaPrefix); ok {
			out[s.Tract] = append(out[s.Tract], TractMeta{Key: k, Value: s.Value})
		}
	}
	for _, m := range out {
		slices.SortFunc(m, func(a, b TractMeta) int { return strings.Compare(a.Key, b.Key) })
	}
	return out, nil
}

// SetTractMeta sets a tract's metadata entries in one transaction; an
// empty value removes its key. Keys are non-empty printable text without
// white space.
func (r *Repo) SetTractMeta(ctx context.Context, tractName string, kv map[string]string) error {
	return r.SetTractsMeta(ctx, map[string]map[string]string{tractName: kv})
}

// SetTractsMeta is SetTractMeta for several tracts (by name) in one
// transaction: all of them set, or, on an error, none.
func (r *Repo) SetTractsMeta(ctx context.Context, sets map[string]map[string]string) error {
	var settings []Setting
	for _, name := range slices.Sorted(maps.Keys(sets)) {
		t, err := r.Tract(ctx, name)
		if err != nil {
			return err
		}
		more, err := metaSettings(t.ID, sets[name])
		if err != nil {
			return err
		}
		settings = append(settings, more...)
	}
	if len(settings) == 0 {
		return nil
	}
	return r.store.Update(ctx, func(tx Tx) error {
		for _, s := range settings {
			if err := tx.PutSetting(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
}

// metaSettings checks one tract's metadata keys and values and returns
// them as the settings that store them, in key order.
func metaSettings(tractID string, kv map[string]string) ([]Setting, error) {
	out := make([]Setting, 0, len(kv))
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		if err := checkMetaKey(k); err != nil {
			return nil, err
		}
		if len(kv[k]) > MaxTractMetaBytes {
			return nil, &ValidationError{Field: "tract meta " + k, Reason: fmt.Sprintf("%d bytes, the limit is %d", len(kv[k]), MaxTractMetaBytes)}
		}
		out = append(out, Setting{Tract: tractID, Key: metaPrefix + k, Value: kv[k]})
	}
	return out, nil
}

func checkMetaKey(k string) error {
	if k == "" || len(k) > MaxNameBytes {
		return &ValidationError{Field: "tract meta key", Value: k, Reason: fmt.Sprintf("want 1 to %d bytes", MaxNameBytes)}
	}
	for _, c := range k {
		if c <= ' ' || c == 0x7f {
			return &ValidationError{Field: "tract meta key", Value: k, Reason: "holds white space or a control character"}
		}
	}
	return nil
}
