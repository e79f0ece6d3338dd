package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
)

// The variables lineage reads besides the instructions' CODELIA_AGENTS_*.
const (
	EnvStore = "LINEAGE_STORE" // the tract store URL or path
	// EnvSessionsStore is the harness sessions' store URL or path; it wins
	// over LINEAGE_STORE for the sessions commands, the recording hooks and
	// the MCP sessions tools, so a project's LINEAGE_STORE and the user's
	// sessions can live apart.
	EnvSessionsStore = "LINEAGE_SESSIONS_STORE"
	EnvTract         = "LINEAGE_TRACT"       // the tract a command works on
	EnvNow           = "LINEAGE_NOW"         // a fixed RFC 3339 time, for reproducible runs
	EnvSkillsUser    = "LINEAGE_SKILLS_USER" // 1/true: also the user's skill folders
	EnvSkillsPath    = "LINEAGE_SKILLS_PATH" // more skill folders, OS list separator
)

// EnvVars are the variables a lineage process reads from its environment
// (set or not): lineage's own, the instructions' CODELIA_AGENTS_* and the
// XDG directory its state lives in. A harness that starts programs with a
// short fixed environment (Codex CLI's MCP servers) is told to pass these.
func EnvVars() []string {
	return append([]string{EnvStore, EnvSessionsStore, EnvTract, EnvNow, EnvSkillsUser, EnvSkillsPath,
		"XDG_STATE_HOME"}, instructions.EnvVars()...)
}

// Host is what the host says: read once by [Read], then asked.
type Host struct {
	lookup func(string) (string, bool)
	// Dir is the working directory.
	Dir string
	// Home is the user's home directory ("" when unknown).
	Home string
	// stateDir is lineage's own state directory, "" with stateErr when
	// there is none.
	stateDir string
	stateErr error

	store, tract string
	now          func() time.Time
	nowErr       error

	skillsUser, skillsUserSet bool
	skillsWarnings            []string
	skillsPath                []string

	instructions         instructions.Settings
	instructionsWarnings []string
}

// Read reads the host's configuration from lookup (nil: no variable is
// set) and the working directory dir. now is the clock when LINEAGE_NOW is
// not set (nil: time.Now).
func Read(lookup func(string) (string, bool), dir string, now func() time.Time) *Host {
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	h := &Host{lookup: lookup, Dir: dir}
	getenv := h.Getenv
	h.Home = fsx.HomeDir(getenv)
	if base, err := fsx.Host.StateDir(getenv); err == nil {
		h.stateDir = filepath.Join(base, "lineage")
	} else {
		h.stateErr = err
	}
	h.store = h.Var(EnvStore)
	h.tract = h.Var(EnvTract)
	h.now, h.nowErr = clock(h.Var(EnvNow), now)
	h.readSkills()
	h.instructions, h.instructionsWarnings = instructions.SettingsFromEnv(lookup)
	return h
}

// Getenv returns a variable's value as set, "" when it is not.
func (h *Host) Getenv(key string) string {
	v, _ := h.lookup(key)
	return v
}

// Lookup is the variable lookup the host was read from, for a library that
// reads its own variables (the harness adapters).
func (h *Host) Lookup(key string) (string, bool) { return h.lookup(key) }

// Var returns a variable's value trimmed of surrounding space; "" when it
// is unset or only space.
func (h *Host) Var(key string) string { return strings.TrimSpace(h.Getenv(key)) }

// StatePath is path elements joined under lineage's state directory
// (<XDG_STATE_HOME>/lineage and its equivalents), "" when the host has
// none: a command then goes without what it would keep there.
func (h *Host) StatePath(elem ...string) string {
	if h.stateDir == "" {
		return ""
	}
	return filepath.Join(append([]string{h.stateDir}, elem...)...)
}

// StateDirError says why there is no state directory (nil when there is).
func (h *Host) StateDirError() error { return h.stateErr }

// ErrNoStore is returned when neither a flag, LINEAGE_STORE nor a store
// found upward names a store.
// It is a value of its own type, not an fmt.Errorf at init: every
// process would pay that formatting before main (TestInitBudget).
var ErrNoStore error = noStoreError{}

type noStoreError struct{}

func (noStoreError) Error() string {
	return "no tract store found: run 'lineage tract init' here, or pass --store / set LINEAGE_STORE"
}

func (noStoreError) Unwrap() error { return errNoStoreFound }

var errNoStoreFound = errors.New("no tract store found")

// StoreURL picks the store: flag (--store), LINEAGE_STORE, or the nearest
// .lineage/lineage.db upward from dir.
func (h *Host) StoreURL(flag, dir string) (string, error) {
	if url := h.StoreSetting(flag); url != "" {
		return url, nil
	}
	if p, ok := stores.Locate(dir); ok {
		return p, nil
	}
	if p, what := stores.Unusable(dir); p != "" {
		return "", fmt.Errorf("no tract store found: %s is %s, not a store file: move it away, or pass --store / set LINEAGE_STORE", p, what)
	}
	return "", ErrNoStore
}

// StoreSetting is the store the flag or LINEAGE_STORE names, "" when
// neither does.
func (h *Host) StoreSetting(flag string) string {
	if flag != "" {
		return flag
	}
	return h.store
}

// SessionsStoreSetting is the sessions store the flag,
// LINEAGE_SESSIONS_STORE or LINEAGE_STORE names (in that order), "" when
// none does: the user's own sessions store then.
func (h *Host) SessionsStoreSetting(flag string) string {
	if flag != "" {
		return flag
	}
	if v := h.Var(EnvSessionsStore); v != "" {
		return v
	}
	return h.store
}

// NewStoreURL is where `tract init` creates a store: flag, LINEAGE_STORE,
// else .lineage/lineage.db in dir.
func (h *Host) NewStoreURL(flag, dir string) string {
	if url := h.StoreSetting(flag); url != "" {
		return url
	}
	return stores.Default(dir)
}

// TractName is the flag (--tract), else LINEAGE_TRACT, else main.
func (h *Host) TractName(flag string) string {
	switch {
	case flag != "":
		return flag
	case h.tract != "":
		return h.tract
	}
	return tract.DefaultTract
}

// VariableError is a variable whose value lineage cannot use.
type VariableError struct {
	Name, Value, Want string
}

func (e *VariableError) Error() string {
	return fmt.Sprintf("%s %q: want %s", e.Name, e.Value, e.Want)
}

// Clock is the clock every command writes times with: a fixed LINEAGE_NOW
// when that is set, else the clock [Read] was given, else time.Now. A
// LINEAGE_NOW that is not a time is a *VariableError.
func (h *Host) Clock() (func() time.Time, error) { return h.now, h.nowErr }

func clock(v string, now func() time.Time) (func() time.Time, error) {
	if v != "" {
		at, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return nil, &VariableError{Name: EnvNow, Value: v, Want: "an RFC 3339 time such as 2026-01-02T03:04:05Z"}
		}
		return func() time.Time { return at }, nil
	}
	if now == nil {
		return time.Now, nil
	}
	return now, nil
}

// EnvMemoryMaxBytes caps the memory a session start gets from lineage's
// hook (bytes; 0 sends none; default memory.DefaultMaxBytes).
const EnvMemoryMaxBytes = "LINEAGE_MEMORY_MAX_BYTES"

// MemoryMaxBytes is LINEAGE_MEMORY_MAX_BYTES, or def when it is not set.
func (h *Host) MemoryMaxBytes(def int) (int, error) {
	v := h.Var(EnvMemoryMaxBytes)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q: want a number of bytes, 0 or more", EnvMemoryMaxBytes, v)
	}
	return n, nil
}
