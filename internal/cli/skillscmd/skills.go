package skillscmd

import (
	"bufio"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/skills"
)

const Short = "Agent Skills: discover, list, search, show and lint SKILL.md"

type skillsFlags struct {
	cwd, root, markers, folders string
	paths                       []string
	user, noCache               bool
}

func NewCmd(env *clienv.Env) *cobra.Command {
	cmd := clienv.GroupCmd("skills", Short,
		`Find the Agent Skills (agentskills.io) that apply to the working directory:
every SKILL.md in the skill folders (.agents/skills, .claude/skills,
.codex/skills, .gemini/skills, .opencode/skills, .github/skills,
.cursor/skills) of each
directory from the project root down to it, the same root AGENTS.md uses;
then the --path folders and $LINEAGE_SKILLS_PATH; with --user (or
LINEAGE_SKILLS_USER=1) also the user's folders. Two skills of one name: the
nearer one wins and the other is listed as shadowed.`)
	cmd.Example = `  lineage skills list
  lineage skills search "release notes"
  lineage skills show release-check
  lineage skills lint`
	f := &skillsFlags{}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.cwd, "cwd", "", "working directory (default: the process directory)")
	pf.StringVar(&f.root, "root", "", "project root override (markers are not consulted)")
	pf.StringVar(&f.markers, "markers", "", "comma-separated root `markers` (default .codelia,.git,.jj)")
	pf.StringVar(&f.folders, "folders", "", "comma-separated skill `folders` looked for in each directory (default .agents/skills,.claude/skills,…)")
	pf.StringArrayVar(&f.paths, "path", nil, "another skill `folder` (repeatable)")
	pf.BoolVar(&f.user, "user", false, "also the user's skill folders (~/.agents/skills, ~/.claude/skills, …)")
	pf.BoolVar(&f.noCache, "no-cache", false, "parse and count every SKILL.md, without the metadata cache")
	cmd.AddCommand(newSkillsListCmd(env, f), newSkillsShowCmd(env, f), newSkillsSearchCmd(env, f), newSkillsLintCmd(env, f))
	return cmd
}

// options builds the discovery options from flags and environment.
func (f *skillsFlags) options(cmd *cobra.Command, env *clienv.Env) (skills.Options, error) {
	cwd := env.Dir
	if f.cwd != "" {
		var err error
		if cwd, err = clienv.ExistingDir(env, "cwd", f.cwd, true); err != nil {
			return skills.Options{}, err
		}
	}
	fromEnv, warnings := env.Host().Instructions()
	clienv.InstructionsWarn(env, warnings)
	var flags instructions.Settings
	changed := func(name string) bool { fl := cmd.Flag(name); return fl != nil && fl.Changed }
	root := &instructions.RootSettings{}
	if changed("root") {
		if strings.TrimSpace(f.root) == "" {
			return skills.Options{}, clienv.UsageError("--root must not be empty")
		}
		root.ProjectRootOverride = &f.root
	}
	if changed("markers") {
		if root.Markers = instructions.SplitList(f.markers); root.Markers == nil {
			return skills.Options{}, clienv.UsageError("--markers must name at least one marker")
		}
	}
	flags.Root = root
	home := env.Host().Home
	o := skills.Options{
		Cwd:  cwd,
		Home: home,
		Root: instructions.BuildConfig(cwd, fromEnv, flags).Root,
		User: f.user,
	}
	if changed("folders") {
		o.ProjectFolders = instructions.SplitList(f.folders)
		if o.ProjectFolders == nil {
			return skills.Options{}, clienv.UsageError("--folders must name at least one folder")
		}
		for _, p := range o.ProjectFolders {
			if filepath.IsAbs(p) || strings.Contains("/"+filepath.ToSlash(p)+"/", "/../") {
				return skills.Options{}, clienv.UsageError("--folders: %q must be a relative path inside a directory", p)
			}
		}
	}
	fromHost := clienv.SkillsEnv(env, cwd)
	o.User = fromHost.SkillsUser(f.user, changed("user"))
	o.Extra = fromHost.Extra
	for _, p := range f.paths {
		dir, err := clienv.ExistingDir(env, "path", p, true)
		if err != nil {
			return skills.Options{}, err
		}
		o.Extra = append(o.Extra, dir)
	}
	if !f.noCache {
		o.CacheDir = fromHost.CacheDir
	}
	return o, nil
}

func (f *skillsFlags) discover(cmd *cobra.Command, env *clienv.Env) (*skills.Catalog, error) {
	o, err := f.options(cmd, env)
	if err != nil {
		return nil, err
	}
	return skills.Discover(o)
}

func newSkillsListCmd(env *clienv.Env, f *skillsFlags) *cobra.Command {
	var j clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the skills: name, body tokens, SKILL.md and description",
		Args:  clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cat, err := f.discover(cmd, env)
			if err != nil {
				return err
			}
			defer cat.Close()
			if j.Set {
				return clienv.WriteJSON(env.Stdout, cat)
			}
			return printSkillsList(env, cat)
		},
	}
	j.Add(cmd, "")
	return cmd
}

func printSkillsList(env *clienv.Env, cat *skills.Catalog) error {
	w := bufio.NewWriter(env.Stdout)
	if len(cat.Skills) == 0 {
		fmt.Fprintf(w, "no skills under %s (%d skill folder(s) looked in)\n", fsx.LineSafe(cat.Root.Dir), len(cat.Folders))
	}
	for _, s := range cat.Skills {
		fmt.Fprintf(w, "%s  %d tokens  %s\n  %s\n", fsx.LineSafe(s.Name), s.BodyTokens, shownPath(cat, s.Path), fsx.LineSafe(strings.Join(strings.Fields(s.Description), " ")))
	}
	if len(cat.Shadowed) > 0 {
		fmt.Fprintln(w, "shadowed (a nearer skill has the name):")
		for _, s := range cat.Shadowed {
			fmt.Fprintf(w, "  %s  %s  (by %s)\n", fsx.LineSafe(s.Name), shownPath(cat, s.Path), shownPath(cat, s.ShadowedBy))
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	skillsNotes(env, cat)
	return nil
}

// skillsNotes tells on stderr that problems were found or a limit hit.
func skillsNotes(env *clienv.Env, cat *skills.Catalog) {
	if n := len(cat.Problems); n > 0 {
		fmt.Fprintf(env.Stderr, "lineage: note: %d problem(s) with skill files: lineage skills lint lists them\n", n)
	}
	if cat.Truncated {
		fmt.Fprintln(env.Stderr, "lineage: note: a discovery limit was reached: not every skill folder was searched")
	}
}

// shownPath is p relative to the root when inside it, else absolute.
func shownPath(cat *skills.Catalog, p string) string {
	root := cat.Root.Dir
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	if rel, ok := strings.CutPrefix(p, root); ok && rel != "" {
		return fsx.LineSafe(rel)
	}
	return fsx.LineSafe(p)
}

func newSkillsShowCmd(env *clienv.Env, f *skillsFlags) *cobra.Command {
	var j clienv.JSONFlag
	var resource string
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Print a skill's body, or one file of its folder with --resource",
		Args:  clienv.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, err := f.discover(cmd, env)
			if err != nil {
				return err
			}
			defer cat.Close()
			var l *skills.Loaded
			if cmd.Flag("resource").Changed {
				l, err = cat.Resource(args[0], resource)
			} else {
				l, err = cat.Load(args[0])
			}
			if errors.Is(err, skills.ErrNotFound) {
				return clienv.UsageError("%v", err)
			}
			if err != nil {
				return err
			}
			if j.Set {
				return clienv.WriteJSON(env.Stdout, l)
			}
			_, err = fmt.Fprintln(env.Stdout, strings.TrimRight(l.Content, "\n"))
			return err
		},
	}
	cmd.Flags().StringVar(&resource, "resource", "", "a file of the skill's folder (relative to it) to print instead of the body")
	j.Add(cmd, "")
	return cmd
}

func newSkillsSearchCmd(env *clienv.Env, f *skillsFlags) *cobra.Command {
	var j clienv.JSONFlag
	var limit int
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Rank the skills by name and description against a query",
		Args:  clienv.MinArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return clienv.UsageError("--limit must be 0 (no limit) or more, got %d", limit)
			}
			query := strings.Join(args, " ")
			if strings.TrimSpace(query) == "" {
				return clienv.UsageError("the query must not be empty")
			}
			cat, err := f.discover(cmd, env)
			if err != nil {
				return err
			}
			defer cat.Close()
			ms := cat.Search(query, limit)
			if j.Set {
				return clienv.WriteJSON(env.Stdout, struct {
					Query   string         `json:"query"`
					Matches []skills.Match `json:"matches"`
				}{query, ms})
			}
			if len(ms) == 0 {
				fmt.Fprintf(env.Stdout, "no skill matches %q\n", query)
				return nil
			}
			w := bufio.NewWriter(env.Stdout)
			for _, m := range ms {
				fmt.Fprintf(w, "%s  (%s)  %s\n  %s\n", fsx.LineSafe(m.Skill.Name), m.Reason, shownPath(cat, m.Skill.Path), fsx.LineSafe(strings.Join(strings.Fields(m.Skill.Description), " ")))
			}
			return w.Flush()
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 10, "most matches printed (0: all)")
	j.Add(cmd, "")
	return cmd
}

func newSkillsLintCmd(env *clienv.Env, f *skillsFlags) *cobra.Command {
	var j clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Check every SKILL.md against the Agent Skills specification (exit 3 on findings)",
		Long: `Check every SKILL.md found against the Agent Skills specification: front
matter present and valid YAML; name present, at most 64 characters, lowercase
letters, digits and single hyphens, not starting or ending with one, equal to
its folder's name; description present, not empty, at most 1024 characters;
compatibility at most 500 characters; metadata a mapping of strings;
allowed-tools a string or a list of strings; no other keys than the
specification's (and the harness keys Claude Code documents); every file the
body links to (or names as scripts/…, references/…, assets/…) exists in the
skill folder. Also reported: entries that could not be read (symbolic links
out, FIFOs, files over 512 KiB, names that are not UTF-8). Exit 3 when there
is a finding.`,
		Args: clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := f.options(cmd, env)
			if err != nil {
				return err
			}
			o.CacheDir = "" // lint reads every file afresh
			cat, err := skills.Discover(o)
			if err != nil {
				return err
			}
			defer cat.Close()
			n := cat.Files
			if j.Set {
				if err := clienv.WriteJSON(env.Stdout, struct {
					Root     string           `json:"root"`
					Files    int              `json:"files"`
					Problems []skills.Problem `json:"problems"`
				}{cat.Root.Dir, n, cat.Problems}); err != nil {
					return err
				}
			} else {
				w := bufio.NewWriter(env.Stdout)
				for _, p := range cat.Problems {
					fmt.Fprintln(w, p.String())
				}
				if err := w.Flush(); err != nil {
					return err
				}
				if len(cat.Problems) == 0 {
					fmt.Fprintf(env.Stdout, "%d SKILL.md file(s) checked: no findings\n", n)
				}
			}
			if len(cat.Problems) > 0 {
				return &clienv.ExitError{Code: clienv.ExitFinding, Err: fmt.Errorf("%d finding(s) in %d SKILL.md file(s)", len(cat.Problems), n)}
			}
			return nil
		},
	}
	j.Add(cmd, "")
	return cmd
}
