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
}

// ConfigKeys lists the settings `tract config` knows.
var ConfigKeys = []string{"budget"}

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
	var c Config
	for _, s := range settings {
		if s.Key == "budget" {
			// Values are validated on the way in; a damaged one reads as none.
			c.Budget, _ = strconv.Atoi(s.Value)
		}
	}
	return c, nil
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
