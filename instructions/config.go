package instructions

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlineage/lineage/internal/fsx"
)

// Config is the complete, effective configuration of a session. Build it
// with [DefaultConfig] or [BuildConfig]: a zero cap loads nothing initially
// and puts no limit on a resolve.
type Config struct {
	// Enabled false: no initial files, and every resolve returns nothing.
	Enabled  bool
	Root     RootConfig
	Initial  InitialConfig
	Resolver ResolverConfig
	// FileNames are tried in each directory, in order; the first regular
	// file found is that directory's file.
	FileNames []string
	Imports   ImportsConfig
	Rules     RulesConfig
	// GlobalFiles are loaded before the project chain, under their own
	// byte cap GlobalMaxBytes (not the project's). None by default: a
	// harness loads its own global file.
	GlobalFiles    []string
	GlobalMaxBytes int
	// Excludes are globs; a file matching one is not loaded (explain says
	// "excluded" and the glob). A glob starting with "/" or "~/" matches
	// absolute paths, any other one paths relative to the root.
	Excludes []string
}

// ImportsConfig governs "@path" imports in loaded files.
type ImportsConfig struct {
	Enabled bool
	// MaxDepth is how many hops of imports are followed (5).
	MaxDepth int
	// AllowedRoots are directories besides the project root that imports
	// may reach (their real paths, symlinks resolved).
	AllowedRoots []string
	// AllowOutsideRoot lets imports reach any path.
	AllowOutsideRoot bool
}

// RulesConfig governs rule folders (.agents/rules, .claude/rules, .cursor/rules).
type RulesConfig struct {
	Enabled bool
	// Dirs are the rule folders looked for in each directory of the chain,
	// relative to it.
	Dirs []string
}

// RootConfig says how the project root is found.
type RootConfig struct {
	// ProjectRootOverride, when not empty, is the root; markers are not consulted.
	ProjectRootOverride string
	// Markers are names whose presence (file or directory) makes a directory the root.
	Markers []string
	// StopAtFsRoot true lets the marker search climb to "/"; false stops it
	// at the home directory (home itself is still checked).
	StopAtFsRoot bool
}

// InitialConfig caps the initial chain.
type InitialConfig struct {
	MaxFiles int
	MaxBytes int
	// BudgetTokens, when > 0, makes the initial load warn when its block
	// is larger than this many tokens (the tract tokenizer). 0: no budget.
	BudgetTokens int
}

// ResolverConfig governs [Session.Resolve].
type ResolverConfig struct {
	Enabled            bool
	MaxFilesPerResolve int
}

// DefaultConfig returns the defaults of the spec.
func DefaultConfig() Config {
	return Config{
		Enabled:   true,
		Root:      RootConfig{Markers: []string{".codelia", ".git", ".jj"}, StopAtFsRoot: true},
		Initial:   InitialConfig{MaxFiles: 16, MaxBytes: 262144},
		Resolver:  ResolverConfig{Enabled: true, MaxFilesPerResolve: 8},
		FileNames: []string{"AGENTS.md"},
		Imports:   ImportsConfig{Enabled: true, MaxDepth: 5},
		Rules:     RulesConfig{Enabled: true, Dirs: []string{".agents/rules", ".claude/rules", ".cursor/rules"}},
		// GlobalMaxBytes is Codex's project_doc_max_bytes doubled: room for
		// one user-wide file and its imports.
		GlobalMaxBytes: 65536,
	}
}

// Settings is one source of configuration: every field is optional, and an
// unset field leaves the value of a lower source alone. Its JSON form is the
// --config file.
type Settings struct {
	Enabled   *bool             `json:"enabled,omitzero"`
	Root      *RootSettings     `json:"root,omitzero"`
	Initial   *InitialSettings  `json:"initial,omitzero"`
	Resolver  *ResolverSettings `json:"resolver,omitzero"`
	FileNames []string          `json:"fileNames,omitzero"`
	Imports   *ImportsSettings  `json:"imports,omitzero"`
	Rules     *RulesSettings    `json:"rules,omitzero"`
	// GlobalFiles and Excludes from several sources add up (lowest first).
	GlobalFiles    []string `json:"globalFiles,omitzero"`
	GlobalMaxBytes *int     `json:"globalMaxBytes,omitzero"`
	Excludes       []string `json:"excludes,omitzero"`
}

// ImportsSettings is the optional form of [ImportsConfig].
type ImportsSettings struct {
	Enabled          *bool    `json:"enabled,omitzero"`
	MaxDepth         *int     `json:"maxDepth,omitzero"`
	AllowedRoots     []string `json:"allowedRoots,omitzero"`
	AllowOutsideRoot *bool    `json:"allowOutsideRoot,omitzero"`
}

// RulesSettings is the optional form of [RulesConfig].
type RulesSettings struct {
	Enabled *bool    `json:"enabled,omitzero"`
	Dirs    []string `json:"dirs,omitzero"`
}

// RootSettings is the optional form of [RootConfig].
type RootSettings struct {
	ProjectRootOverride *string  `json:"projectRootOverride,omitzero"`
	Markers             []string `json:"markers,omitzero"`
	StopAtFsRoot        *bool    `json:"stopAtFsRoot,omitzero"`
}

// InitialSettings is the optional form of [InitialConfig].
type InitialSettings struct {
	MaxFiles     *int `json:"maxFiles,omitzero"`
	MaxBytes     *int `json:"maxBytes,omitzero"`
	BudgetTokens *int `json:"budgetTokens,omitzero"`
}

// ResolverSettings is the optional form of [ResolverConfig].
type ResolverSettings struct {
	Enabled            *bool `json:"enabled,omitzero"`
	MaxFilesPerResolve *int  `json:"maxFilesPerResolve,omitzero"`
}

// BuildConfig layers sources over the defaults, lowest first: the result of
// BuildConfig(file, env, flags) has flags winning over env over file. A
// relative root override is made absolute against cwd.
func BuildConfig(cwd string, lowestFirst ...Settings) Config {
	c := DefaultConfig()
	for _, s := range lowestFirst {
		s.applyTo(&c)
	}
	if o := c.Root.ProjectRootOverride; o != "" {
		c.Root.ProjectRootOverride = fsx.Abs(cwd, o)
	}
	// Paths of global files and allowed roots: relative ones against cwd;
	// "~/…" stays for the session to expand with its home.
	for _, list := range [][]string{c.GlobalFiles, c.Imports.AllowedRoots} {
		for i, p := range list {
			if p != "~" && !strings.HasPrefix(p, "~/") {
				list[i] = fsx.Abs(cwd, p)
			}
		}
	}
	return c
}

// userPath makes p absolute: "~" and "~/…" against home (ok false without
// one), anything relative against cwd.
func userPath(p, cwd, home string) (string, bool) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home == "" {
			return "", false
		}
		return filepath.Join(home, filepath.FromSlash(strings.TrimPrefix(p[1:], "/"))), true
	}
	return fsx.Abs(cwd, p), true
}

func (s Settings) applyTo(c *Config) {
	setBool(&c.Enabled, s.Enabled)
	if len(s.FileNames) > 0 {
		c.FileNames = clone(s.FileNames)
	}
	if r := s.Root; r != nil {
		if r.ProjectRootOverride != nil && strings.TrimSpace(*r.ProjectRootOverride) != "" {
			c.Root.ProjectRootOverride = strings.TrimSpace(*r.ProjectRootOverride)
		}
		if len(r.Markers) > 0 {
			c.Root.Markers = clone(r.Markers)
		}
		setBool(&c.Root.StopAtFsRoot, r.StopAtFsRoot)
	}
	if i := s.Initial; i != nil {
		setInt(&c.Initial.MaxFiles, i.MaxFiles)
		setInt(&c.Initial.MaxBytes, i.MaxBytes)
		setInt(&c.Initial.BudgetTokens, i.BudgetTokens)
	}
	if r := s.Resolver; r != nil {
		setBool(&c.Resolver.Enabled, r.Enabled)
		setInt(&c.Resolver.MaxFilesPerResolve, r.MaxFilesPerResolve)
	}
	if i := s.Imports; i != nil {
		setBool(&c.Imports.Enabled, i.Enabled)
		setInt(&c.Imports.MaxDepth, i.MaxDepth)
		c.Imports.AllowedRoots = append(c.Imports.AllowedRoots, i.AllowedRoots...)
		setBool(&c.Imports.AllowOutsideRoot, i.AllowOutsideRoot)
	}
	if r := s.Rules; r != nil {
		setBool(&c.Rules.Enabled, r.Enabled)
		if len(r.Dirs) > 0 {
			c.Rules.Dirs = clone(r.Dirs)
		}
	}
	c.GlobalFiles = append(c.GlobalFiles, s.GlobalFiles...)
	setInt(&c.GlobalMaxBytes, s.GlobalMaxBytes)
	c.Excludes = append(c.Excludes, s.Excludes...)
}

func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}

func setInt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}

func clone(s []string) []string { return append([]string(nil), s...) }

// MaxConfigBytes is the largest --config file read.
const MaxConfigBytes = 1 << 20

// ParseConfig decodes a --config file strictly: unknown keys, duplicate
// keys, wrong types, numbers that are not whole and > 0, empty names and
// file names containing a path separator are errors naming the key.
func ParseConfig(data []byte) (Settings, error) {
	var s Settings
	err := json.Unmarshal(data, &s, json.RejectUnknownMembers(true))
	if err != nil {
		return Settings{}, describeJSONError(data, err)
	}
	if err := rejectNull(data); err != nil {
		return Settings{}, err
	}
	return s, s.validate()
}

// rejectNull finds the first JSON null in a document that decoded: every
// key of the configuration has a type, and decoding would otherwise take
// null as "unset" and silently fall back to a lower source.
func rejectNull(data []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil // the end, or an error decoding already reported
		}
		if tok.Kind() != 'n' {
			continue
		}
		if key := dotted(dec.StackPointer()); key != "" {
			return fmt.Errorf("%s: must not be null", key)
		}
		return errors.New("expected an object, got null")
	}
}

func (s Settings) validate() error {
	if err := validateNames("fileNames", s.FileNames, true); err != nil {
		return err
	}
	if r := s.Root; r != nil {
		if r.ProjectRootOverride != nil && strings.TrimSpace(*r.ProjectRootOverride) == "" {
			return errors.New("root.projectRootOverride: must not be empty")
		}
		if err := validateNames("root.markers", r.Markers, false); err != nil {
			return err
		}
	}
	var errs []error
	if i := s.Initial; i != nil {
		errs = append(errs, positive("initial.maxFiles", i.MaxFiles), positive("initial.maxBytes", i.MaxBytes),
			positive("initial.budgetTokens", i.BudgetTokens))
	}
	if r := s.Resolver; r != nil {
		errs = append(errs, positive("resolver.maxFilesPerResolve", r.MaxFilesPerResolve))
	}
	errs = append(errs, positive("globalMaxBytes", s.GlobalMaxBytes))
	if i := s.Imports; i != nil {
		errs = append(errs, positive("imports.maxDepth", i.MaxDepth), validateNames("imports.allowedRoots", i.AllowedRoots, false))
	}
	if r := s.Rules; r != nil {
		errs = append(errs, validateNames("rules.dirs", r.Dirs, false))
		for i, d := range r.Dirs {
			if filepath.IsAbs(d) || strings.HasPrefix(d, "/") || slices.Contains(strings.Split(filepath.ToSlash(d), "/"), "..") {
				errs = append(errs, fmt.Errorf("rules.dirs[%d]: %q must be a relative path inside the directory", i, d))
			}
		}
	}
	errs = append(errs, validateNames("globalFiles", s.GlobalFiles, false), ValidateGlobs("excludes", s.Excludes))
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func positive(key string, v *int) error {
	if v != nil && *v <= 0 {
		return fmt.Errorf("%s: must be a whole number > 0, got %d", key, *v)
	}
	return nil
}

// validateNames checks a list of names: present lists must not be empty and
// must not hold empty entries; file names must be plain names.
func validateNames(key string, names []string, plain bool) error {
	if names != nil && len(names) == 0 {
		return fmt.Errorf("%s: must not be empty", key)
	}
	for i, n := range names {
		if strings.TrimSpace(n) == "" {
			return fmt.Errorf("%s[%d]: must not be empty", key, i)
		}
		if plain && (strings.ContainsRune(n, '/') || strings.ContainsRune(n, filepath.Separator) || n == "." || n == "..") {
			return fmt.Errorf("%s[%d]: %q is not a plain file name", key, i, n)
		}
	}
	return nil
}

// describeJSONError turns a decoding error into a message naming the key
// (as a dotted path) or the line and column.
func describeJSONError(data []byte, err error) error {
	var serr *json.SemanticError
	if errors.As(err, &serr) {
		key := dotted(serr.JSONPointer)
		if errors.Is(serr.Err, json.ErrUnknownName) {
			return fmt.Errorf("unknown key %q", key)
		}
		var syn *jsontext.SyntacticError
		if !errors.As(serr.Err, &syn) {
			want := "a valid value"
			if serr.GoType != nil {
				want = describeType(serr.GoType.String())
			}
			if key == "" {
				return fmt.Errorf("expected %s", want)
			}
			return fmt.Errorf("%s: expected %s", key, want)
		}
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		line, col := lineCol(data, syn.ByteOffset)
		msg := strings.TrimPrefix(syn.Err.Error(), "jsontext: ")
		if errors.Is(syn.Err, jsontext.ErrDuplicateName) {
			return fmt.Errorf("line %d, column %d: duplicate key %q", line, col, dotted(syn.JSONPointer))
		}
		return fmt.Errorf("line %d, column %d: %s", line, col, msg)
	}
	return err
}

func describeType(goType string) string {
	switch strings.TrimLeft(goType, "*") {
	case "bool":
		return "true or false"
	case "int":
		return "a whole number"
	case "string":
		return "a string"
	case "[]string":
		return "an array of strings"
	default:
		return "an object"
	}
}

func dotted(p jsontext.Pointer) string {
	var parts []string
	for tok := range p.Tokens() {
		if _, err := strconv.Atoi(tok); err == nil && len(parts) > 0 {
			parts[len(parts)-1] += "[" + tok + "]"
			continue
		}
		parts = append(parts, tok)
	}
	return strings.Join(parts, ".")
}

func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// ValidateGlobs checks a list of glob patterns, naming key and the entry
// in its error.
func ValidateGlobs(key string, patterns []string) error {
	for i, p := range patterns {
		if _, err := compileGlob(p); err != nil {
			return fmt.Errorf("%s[%d]: %w", key, i, err)
		}
	}
	return nil
}
