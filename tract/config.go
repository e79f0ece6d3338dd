package tract

import (
	"context"
	"fmt"
	"strconv"
)

// Config is a tract's stored settings.
type Config struct {
	// Budget is the token budget status measures the context against and
	// compress --plan plans for; 0 means none.
	Budget int `json:"budget"`
	// WarnAt is the share of the budget above which a commit warns that
	// the context is under pressure (DefaultWarnAt unless stored).
	WarnAt float64 `json:"warnAt"`
	// Prune is the prune policy every compile of the tract by `tract
	// compile`, `lineage context` and `lineage handoff` applies unless
	// told otherwise ([PrunePolicy]; "" for none), in String's form.
	Prune string `json:"prune,omitempty"`
}

// PrunePolicy is the stored prune policy (the zero policy for none).
func (c Config) PrunePolicy() PrunePolicy {
	// Validated on the way in; a damaged value reads as none.
	p, _ := ParsePrunePolicy(c.Prune)
	return p
}

// DefaultWarnAt is the pressure a commit warns at when none is stored: the
// share of the window Codelia compacts at.
const DefaultWarnAt = 0.85

// ConfigKeys lists the settings `tract config` knows.
var ConfigKeys = []string{"budget", "warn-at", "prune"}

// Config reads the tract's stored settings.
func (r *Repo) Config(ctx context.Context, tractName string) (Config, error) {
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return Config{}, err
	}
	return readConfig(ctx, r.store, t.ID)
}

func readConfig(ctx context.Context, rd Reader, tractID string) (Config, error) {
	settings, err := rd.Settings(ctx, tractID)
	if err != nil {
		return Config{}, err
	}
	c := Config{WarnAt: DefaultWarnAt}
	for _, s := range settings {
		// Values are validated on the way in; a damaged one reads as none.
		switch s.Key {
		case "budget":
			c.Budget, _ = strconv.Atoi(s.Value)
		case "warn-at":
			if w, err := ParseWarnAt(s.Value); err == nil && w > 0 {
				c.WarnAt = w
			}
		case "prune":
			if p, err := ParsePrunePolicy(s.Value); err == nil && p.Active() {
				c.Prune = p.String()
			}
		}
	}
	return c, nil
}

// ParseWarnAt parses a warning threshold as `tract config warn-at` takes
// it: a share of the budget above 0 and at most 1 (0.85), or none (or "")
// for the default, which is 0.
func ParseWarnAt(s string) (float64, error) {
	if s == "" || s == "none" {
		return 0, nil
	}
	w, err := strconv.ParseFloat(s, 64)
	if err != nil || !(w > 0 && w <= 1) {
		return 0, &ValidationError{Field: "warn-at", Value: s, Reason: "want a share of the budget above 0 and at most 1 (0.85), or none for the default"}
	}
	return w, nil
}

// ParseBudget parses a budget as `tract config budget` takes it: a
// positive number of tokens, or none (or "") for no budget, which is 0.
func ParseBudget(s string) (int, error) {
	if s == "" || s == "none" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, &ValidationError{Field: "budget", Value: s, Reason: "want a positive number of tokens, or none"}
	}
	return n, nil
}

// SetConfig stores one setting of the tract; value "none" (or "") removes
// it. The budget takes a positive number of tokens.
func (r *Repo) SetConfig(ctx context.Context, tractName, key, value string) (Config, error) {
	switch key {
	case "budget":
		n, err := ParseBudget(value)
		if err != nil {
			return Config{}, err
		}
		value = ""
		if n > 0 {
			value = strconv.Itoa(n)
		}
	case "warn-at":
		w, err := ParseWarnAt(value)
		if err != nil {
			return Config{}, err
		}
		value = ""
		if w > 0 {
			value = strconv.FormatFloat(w, 'f', -1, 64)
		}
	case "prune":
		p, err := ParsePrunePolicy(value)
		if err != nil {
			return Config{}, err
		}
		value = ""
		if p.Active() {
			value = p.String()
		}
	default:
		return Config{}, &ValidationError{Field: "config key", Value: key, Reason: fmt.Sprintf("unknown (want one of %v)", ConfigKeys)}
	}
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return Config{}, err
	}
	var out Config
	err = r.store.Update(ctx, func(tx Tx) error {
		if err := tx.PutSetting(ctx, Setting{Tract: t.ID, Key: key, Value: value}); err != nil {
			return err
		}
		out, err = readConfig(ctx, tx, t.ID)
		return err
	})
	return out, err
}
