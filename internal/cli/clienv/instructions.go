package clienv

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
)

// InstructionsFlags are the flags every instructions command takes.
type InstructionsFlags struct {
	Cwd, Config, Root, Markers, FileNames string
	MaxFiles, MaxBytes, MaxPerResolve     int
	BudgetTokens                          int
	Disable, NoResolver                   bool
	NoImports, NoRules                    bool
	Globals, Excludes                     []string
}

// AddSettingsFlags registers every instruction setting's flag but --cwd
// on fl: the instructions commands and `lineage mcp` take the same ones.
func (f *InstructionsFlags) AddSettingsFlags(fl *pflag.FlagSet) {
	fl.StringVar(&f.Config, "config", "", "JSON configuration `file`")
	fl.StringVar(&f.Root, "root", "", "project root override (markers are not consulted)")
	fl.StringVar(&f.Markers, "markers", "", "comma-separated root `markers` (default .codelia,.git,.jj)")
	fl.IntVar(&f.MaxFiles, "max-files", 0, "most files in the initial chain (default 16)")
	fl.IntVar(&f.MaxBytes, "max-bytes", 0, "most content bytes in the initial chain (default 262144)")
	fl.IntVar(&f.MaxPerResolve, "max-per-resolve", 0, "most files one resolve returns (default 8)")
	fl.IntVar(&f.BudgetTokens, "budget-tokens", 0, "warn when the initial instructions exceed `N` tokens")
	fl.StringVar(&f.FileNames, "file-names", "", "comma-separated `names` tried in each directory (default AGENTS.md)")
	fl.BoolVar(&f.Disable, "disable", false, "load nothing and resolve nothing")
	fl.BoolVar(&f.NoResolver, "no-resolver", false, "load the initial chain but resolve nothing")
	fl.BoolVar(&f.NoImports, "no-imports", false, "do not follow @path imports")
	fl.BoolVar(&f.NoRules, "no-rules", false, "do not read rule folders (.agents/rules, .claude/rules, .cursor/rules)")
	fl.StringArrayVar(&f.Globals, "global", nil, "load `FILE` before the project chain, under its own cap (repeatable)")
	fl.StringArrayVar(&f.Excludes, "exclude", nil, "skip files matching `GLOB` (absolute, ~/ or root-relative; repeatable)")
}

// options builds the session options from flags, environment, the config
// file and defaults, printing environment warnings.
func (f *InstructionsFlags) Options(cmd *cobra.Command, env *Env) (instructions.Options, error) {
	cwd := env.Dir
	if f.Cwd != "" {
		var err error
		if cwd, err = ExistingDir(env, "cwd", f.Cwd, true); err != nil {
			return instructions.Options{}, err
		}
	}
	cfg, err := f.BuildConfig(cmd, env, cwd)
	if err != nil {
		return instructions.Options{}, err
	}
	return instructions.Options{Config: cfg, Cwd: cwd, Home: env.Host().Home}, nil
}

// BuildConfig is the effective configuration for cwd: flags over
// CODELIA_AGENTS_* over the --config file over the defaults (environment
// warnings printed).
func (f *InstructionsFlags) BuildConfig(cmd *cobra.Command, env *Env, cwd string) (instructions.Config, error) {
	var file instructions.Settings
	if f.Config != "" {
		p := fsx.Abs(env.Dir, f.Config)
		data, err := fsx.ReadRegular(p, instructions.MaxConfigBytes)
		if err != nil {
			return instructions.Config{}, fmt.Errorf("read config: %w", err)
		}
		if file, err = instructions.ParseConfig(data); err != nil {
			return instructions.Config{}, fmt.Errorf("config %s: %w", p, err)
		}
	}
	fromEnv, warnings := env.Host().Instructions()
	InstructionsWarn(env, warnings)
	flags, err := f.settings(cmd)
	if err != nil {
		return instructions.Config{}, err
	}
	return instructions.BuildConfig(cwd, file, fromEnv, flags), nil
}

// settings returns the flags the user gave as a configuration layer.
func (f *InstructionsFlags) settings(cmd *cobra.Command) (instructions.Settings, error) {
	var s instructions.Settings
	changed := func(name string) bool { fl := cmd.Flag(name); return fl != nil && fl.Changed }
	root := &instructions.RootSettings{}
	if changed("root") {
		if strings.TrimSpace(f.Root) == "" {
			return s, UsageError("--root must not be empty")
		}
		root.ProjectRootOverride = &f.Root
	}
	if changed("markers") {
		if root.Markers = instructions.SplitList(f.Markers); root.Markers == nil {
			return s, UsageError("--markers must name at least one marker")
		}
	}
	if root.ProjectRootOverride != nil || root.Markers != nil {
		s.Root = root
	}
	if changed("file-names") {
		s.FileNames = instructions.SplitList(f.FileNames)
		if s.FileNames == nil || strings.ContainsAny(f.FileNames, `/\`) {
			return s, UsageError("--file-names must be plain file names, got %q", f.FileNames)
		}
	}
	var bad error
	positive := func(name string, v int) *int {
		if !changed(name) || bad != nil {
			return nil
		}
		if v <= 0 {
			bad = UsageError("--%s must be a whole number > 0, got %d", name, v)
			return nil
		}
		return &v
	}
	s.Initial = &instructions.InitialSettings{MaxFiles: positive("max-files", f.MaxFiles), MaxBytes: positive("max-bytes", f.MaxBytes),
		BudgetTokens: positive("budget-tokens", f.BudgetTokens)}
	s.Resolver = &instructions.ResolverSettings{MaxFilesPerResolve: positive("max-per-resolve", f.MaxPerResolve)}
	if bad != nil {
		return s, bad
	}
	if changed("disable") {
		enabled := !f.Disable
		s.Enabled = &enabled
	}
	if changed("no-resolver") {
		enabled := !f.NoResolver
		s.Resolver.Enabled = &enabled
	}
	if changed("no-imports") {
		enabled := !f.NoImports
		s.Imports = &instructions.ImportsSettings{Enabled: &enabled}
	}
	if changed("no-rules") {
		enabled := !f.NoRules
		s.Rules = &instructions.RulesSettings{Enabled: &enabled}
	}
	for _, g := range f.Globals {
		if strings.TrimSpace(g) == "" {
			return s, UsageError("--global must name a file")
		}
	}
	s.GlobalFiles = f.Globals
	if err := instructions.ValidateGlobs("--exclude", f.Excludes); err != nil {
		return s, UsageError("%v", err)
	}
	s.Excludes = f.Excludes
	return s, nil
}

func InstructionsWarn(env *Env, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(env.Stderr, "lineage: warning: %s\n", w)
	}
}
