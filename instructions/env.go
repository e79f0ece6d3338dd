package instructions

import (
	"fmt"
	"strconv"
	"strings"
)

// Environment variables read by [SettingsFromEnv].
const (
	EnvRoot            = "CODELIA_AGENTS_ROOT"
	EnvMarkers         = "CODELIA_AGENTS_MARKERS"
	EnvEnabled         = "CODELIA_AGENTS_ENABLED"
	EnvResolverEnabled = "CODELIA_AGENTS_RESOLVER_ENABLED"
	EnvMaxFiles        = "CODELIA_AGENTS_INITIAL_MAX_FILES"
	EnvMaxBytes        = "CODELIA_AGENTS_INITIAL_MAX_BYTES"
	EnvMaxPerResolve   = "CODELIA_AGENTS_MAX_FILES_PER_RESOLVE"
	// EnvFileNames is a comma-separated list of plain file names.
	EnvFileNames = "CODELIA_AGENTS_FILE_NAMES"
)

// EnvVars are the variables [SettingsFromEnv] reads.
func EnvVars() []string {
	return []string{EnvRoot, EnvMarkers, EnvEnabled, EnvResolverEnabled, EnvMaxFiles, EnvMaxBytes, EnvMaxPerResolve, EnvFileNames}
}

// SettingsFromEnv reads the CODELIA_AGENTS_* variables through lookup. A
// variable counts only when it is set and not empty after trimming, so an
// unset variable never erases a value from a lower source. An unparsable
// value is ignored and reported in warnings, which name the variable.
func SettingsFromEnv(lookup func(string) (string, bool)) (s Settings, warnings []string) {
	get := func(key string) (string, bool) {
		if lookup == nil {
			return "", false
		}
		v, ok := lookup(key)
		v = strings.TrimSpace(v)
		return v, ok && v != ""
	}
	warn := func(key, v, why string) {
		warnings = append(warnings, fmt.Sprintf("ignoring %s=%q: %s", key, v, why))
	}
	root := &RootSettings{}
	if v, ok := get(EnvRoot); ok {
		root.ProjectRootOverride = &v
	}
	if v, ok := get(EnvMarkers); ok {
		root.Markers = SplitList(v)
	}
	if root.ProjectRootOverride != nil || root.Markers != nil {
		s.Root = root
	}
	boolVar := func(key string) *bool {
		v, ok := get(key)
		if !ok {
			return nil
		}
		b, err := ParseBool(v)
		if err != nil {
			warn(key, v, "want 1, true, 0 or false")
			return nil
		}
		return &b
	}
	intVar := func(key string) *int {
		v, ok := get(key)
		if !ok {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			warn(key, v, "want a whole number > 0")
			return nil
		}
		return &n
	}
	s.Enabled = boolVar(EnvEnabled)
	if e, n := boolVar(EnvResolverEnabled), intVar(EnvMaxPerResolve); e != nil || n != nil {
		s.Resolver = &ResolverSettings{Enabled: e, MaxFilesPerResolve: n}
	}
	if v, ok := get(EnvFileNames); ok {
		names := SplitList(v)
		if err := validateNames(EnvFileNames, names, true); err != nil || names == nil {
			warn(EnvFileNames, v, "want comma-separated plain file names")
		} else {
			s.FileNames = names
		}
	}
	if f, b := intVar(EnvMaxFiles), intVar(EnvMaxBytes); f != nil || b != nil {
		s.Initial = &InitialSettings{MaxFiles: f, MaxBytes: b}
	}
	return s, warnings
}

// SplitList splits a comma-separated list, trimming entries and dropping
// empty ones; an empty result is nil (unset).
func SplitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseBool accepts 1, true, 0 and false in any case.
func ParseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true":
		return true, nil
	case "0", "false":
		return false, nil
	}
	return false, fmt.Errorf("%q is not 1, true, 0 or false", v)
}
