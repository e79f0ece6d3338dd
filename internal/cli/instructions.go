package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
)

// instructionsFlags are the flags every instructions command takes.
type instructionsFlags struct {
	cwd, config, root, markers, fileNames string
	maxFiles, maxBytes, maxPerResolve     int
	budgetTokens                          int
	disable, noResolver                   bool
	noImports, noRules                    bool
	globals, excludes                     []string
}

const instructionsShort = "Hierarchical AGENTS.md loading and resolving"

func newInstructionsCmd(env *Env) *cobra.Command {
	cmd := groupCmd("instructions", instructionsShort,
		`Load the AGENTS.md files from the project root down to the working directory
once, then resolve only the further ones that apply when work moves elsewhere.

Configuration, highest first: flags, CODELIA_AGENTS_* environment variables
(only when set and not empty), the --config JSON file, defaults.`)
	f := &instructionsFlags{}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.cwd, "cwd", "", "working directory (default: the process directory)")
	pf.StringVar(&f.config, "config", "", "JSON configuration `file`")
	pf.StringVar(&f.root, "root", "", "project root override (markers are not consulted)")
	pf.StringVar(&f.markers, "markers", "", "comma-separated root `markers` (default .codelia,.git,.jj)")
	pf.IntVar(&f.maxFiles, "max-files", 0, "most files in the initial chain (default 16)")
	pf.IntVar(&f.maxBytes, "max-bytes", 0, "most content bytes in the initial chain (default 262144)")
	pf.IntVar(&f.maxPerResolve, "max-per-resolve", 0, "most files one resolve returns (default 8)")
	pf.IntVar(&f.budgetTokens, "budget-tokens", 0, "warn when the initial instructions exceed `N` tokens")
	pf.StringVar(&f.fileNames, "file-names", "", "comma-separated `names` tried in each directory (default AGENTS.md)")
	pf.BoolVar(&f.disable, "disable", false, "load nothing and resolve nothing")
	pf.BoolVar(&f.noResolver, "no-resolver", false, "load the initial chain but resolve nothing")
	pf.BoolVar(&f.noImports, "no-imports", false, "do not follow @path imports")
	pf.BoolVar(&f.noRules, "no-rules", false, "do not read rule folders (.agents/rules, .claude/rules)")
	pf.StringArrayVar(&f.globals, "global", nil, "load `FILE` before the project chain, under its own cap (repeatable)")
	pf.StringArrayVar(&f.excludes, "exclude", nil, "skip files matching `GLOB` (absolute, ~/ or root-relative; repeatable)")
	cmd.AddCommand(
		newInstructionsInitialCmd(env, f),
		newInstructionsResolveCmd(env, f),
		newInstructionsExplainCmd(env, f),
		newInstructionsResumeCmd(env, f),
	)
	return cmd
}

// options builds the session options from flags, environment, the config
// file and defaults, printing environment warnings.
func (f *instructionsFlags) options(cmd *cobra.Command, env *Env) (instructions.Options, error) {
	cwd := env.Dir
	if f.cwd != "" {
		var err error
		if cwd, err = existingDir(env, "cwd", f.cwd, true); err != nil {
			return instructions.Options{}, err
		}
	}
	var file instructions.Settings
	if f.config != "" {
		p := fsx.Abs(env.Dir, f.config)
		data, err := fsx.ReadRegular(p, instructions.MaxConfigBytes)
		if err != nil {
			return instructions.Options{}, fmt.Errorf("read config: %w", err)
		}
		if file, err = instructions.ParseConfig(data); err != nil {
			return instructions.Options{}, fmt.Errorf("config %s: %w", p, err)
		}
	}
	fromEnv, warnings := instructions.SettingsFromEnv(env.LookupEnv)
	instructionsWarn(env, warnings)
	flags, err := f.settings(cmd)
	if err != nil {
		return instructions.Options{}, err
	}
	return instructions.Options{
		Config: instructions.BuildConfig(cwd, file, fromEnv, flags),
		Cwd:    cwd,
		Home:   fsx.HomeDir(env.Getenv),
	}, nil
}

// settings returns the flags the user gave as a configuration layer.
func (f *instructionsFlags) settings(cmd *cobra.Command) (instructions.Settings, error) {
	var s instructions.Settings
	changed := func(name string) bool { fl := cmd.Flag(name); return fl != nil && fl.Changed }
	root := &instructions.RootSettings{}
	if changed("root") {
		if strings.TrimSpace(f.root) == "" {
			return s, usageError("--root must not be empty")
		}
		root.ProjectRootOverride = &f.root
	}
	if changed("markers") {
		if root.Markers = instructions.SplitList(f.markers); root.Markers == nil {
			return s, usageError("--markers must name at least one marker")
		}
	}
	if root.ProjectRootOverride != nil || root.Markers != nil {
		s.Root = root
	}
	if changed("file-names") {
		s.FileNames = instructions.SplitList(f.fileNames)
		if s.FileNames == nil || strings.ContainsAny(f.fileNames, `/\`) {
			return s, usageError("--file-names must be plain file names, got %q", f.fileNames)
		}
	}
	var bad error
	positive := func(name string, v int) *int {
		if !changed(name) || bad != nil {
			return nil
		}
		if v <= 0 {
			bad = usageError("--%s must be a whole number > 0, got %d", name, v)
			return nil
		}
		return &v
	}
	s.Initial = &instructions.InitialSettings{MaxFiles: positive("max-files", f.maxFiles), MaxBytes: positive("max-bytes", f.maxBytes),
		BudgetTokens: positive("budget-tokens", f.budgetTokens)}
	s.Resolver = &instructions.ResolverSettings{MaxFilesPerResolve: positive("max-per-resolve", f.maxPerResolve)}
	if bad != nil {
		return s, bad
	}
	if changed("disable") {
		enabled := !f.disable
		s.Enabled = &enabled
	}
	if changed("no-resolver") {
		enabled := !f.noResolver
		s.Resolver.Enabled = &enabled
	}
	if changed("no-imports") {
		enabled := !f.noImports
		s.Imports = &instructions.ImportsSettings{Enabled: &enabled}
	}
	if changed("no-rules") {
		enabled := !f.noRules
		s.Rules = &instructions.RulesSettings{Enabled: &enabled}
	}
	for _, g := range f.globals {
		if strings.TrimSpace(g) == "" {
			return s, usageError("--global must name a file")
		}
	}
	s.GlobalFiles = f.globals
	if err := instructions.ValidateGlobs("--exclude", f.excludes); err != nil {
		return s, usageError("%v", err)
	}
	s.Excludes = f.excludes
	return s, nil
}

func instructionsWarn(env *Env, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(env.Stderr, "lineage: warning: %s\n", w)
	}
}
