package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/hooks"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
)

const Short = "Answer Claude Code, Gemini CLI, Codex CLI, Cursor, Copilot CLI and opencode hooks with AGENTS.md context"

func NewCmd(env *clienv.Env) *cobra.Command {
	cmd := clienv.GroupCmd("hook", Short,
		`Run as a harness's hook command, lineage tells the model which AGENTS.md apply:
the initial chain at session start, the resume diff at a resume, and the
further files a tool call's paths need, each once per session.

  lineage hook install claude      add the hooks to ~/.claude/settings.json
  lineage hook claude              the hook itself: one event on stdin

See docs/hooks.md.`)
	cmd.Example = `  lineage hook install claude                     # ~/.claude/settings.json, this binary's absolute path
  lineage hook install claude --scope project     # .claude/settings.json for the team: "lineage" from PATH
  lineage hook install gemini --dry-run
  lineage hook status
  lineage hook uninstall codex`
	// An unknown harness name or flag is what a typo or a newer harness
	// in a settings file runs: exit 1, never the usage code 2, which the
	// harness would take as "block" (see [hookRun]).
	cmd.Args = func(_ *cobra.Command, args []string) error {
		if len(args) > 0 {
			return hookFailure(fmt.Errorf("unknown harness %q (want %s)", args[0], harnessChoice()))
		}
		return nil
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return hookFailure(err) })
	for _, h := range hooks.Harnesses() {
		cmd.AddCommand(newHookRunCmd(env, h))
	}
	cmd.AddCommand(newHookInstallCmd(env, true), newHookInstallCmd(env, false), newHookStatusCmd(env))
	return cmd
}

// hookFailure is how the hook command fails: exit 1, which every harness
// treats as a non-blocking error (2 would block the agent).
func hookFailure(err error) error {
	return &clienv.ExitError{Code: clienv.ExitFailure, Err: fmt.Errorf("hook: %w", err)}
}

func newHookRunCmd(env *clienv.Env, h *hooks.Harness) *cobra.Command {
	var f hooks.Flags
	cmd := &cobra.Command{
		Use:   h.Name + " [--slug S] [--file-names N,…] [--config FILE]",
		Short: "Answer one " + h.Title + " hook event read from stdin",
		Long: `Read one ` + h.Title + ` hook event on stdin and print its additional context
as the harness's hook JSON, or nothing. Session state lives in
$XDG_STATE_HOME/lineage/sessions (per OS: see docs/hooks.md). The resolver is
configured like 'lineage instructions': --file-names, then the CODELIA_AGENTS_*
environment, then the --config file. On an internal error nothing
is printed on stdout, one line on stderr, and the exit code is 1 — never 2,
which the harness would take as "block".`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return hookFailure(fmt.Errorf("unexpected argument %q", args[0]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := runHook(cmd, env, h, f); err != nil {
				return hookFailure(err)
			}
			return nil
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return hookFailure(err) })
	cmd.Flags().StringVar(&f.Slug, "slug", "", "add this agent's merged guardrails at session start")
	cmd.Flags().StringVar(&f.FileNames, "file-names", "", "comma-separated instruction file `names` tried in each directory (default AGENTS.md)")
	cmd.Flags().StringVar(&f.Config, "config", "", "instructions JSON configuration `file`")
	cmd.Flags().BoolVar(&f.Record, "record", false, "append the session's new transcript records to the sessions store (see 'lineage sessions')")
	return cmd
}

// hookSettings is the configuration the hook's flags and config file give,
// lowest first, for [instructions.BuildConfig] (the environment goes
// between them).
func hookSettings(env *clienv.Env, h *hooks.Harness, f hooks.Flags, eventCwd string) (file, flags instructions.Settings, err error) {
	if f.Config != "" {
		p, err := hookConfigPath(env, h, f.Config, eventCwd)
		if err != nil {
			return file, flags, err
		}
		data, err := fsx.ReadRegular(p, instructions.MaxConfigBytes)
		if err != nil {
			return file, flags, fmt.Errorf("read config: %w", err)
		}
		if file, err = instructions.ParseConfig(data); err != nil {
			return file, flags, fmt.Errorf("config %s: %w", p, err)
		}
	}
	if f.FileNames != "" {
		flags.FileNames = instructions.SplitList(f.FileNames)
		if flags.FileNames == nil || strings.ContainsAny(f.FileNames, `/\`) {
			return file, flags, fmt.Errorf("--file-names must be plain file names, got %q", f.FileNames)
		}
	}
	return file, flags, nil
}

// lostOutput reports whether w is the null device: what a closed stdout
// becomes (Go's runtime opens the null device on a standard descriptor
// that is closed at start, so a later open cannot take its place), and
// where no harness reads an answer.
//
// On Windows it is never known: a pipe (how every harness runs a hook), a
// console and NUL all stat with file id 0, so os.SameFile cannot tell them
// apart (a piped hook was refused), and Go's runtime leaves a closed
// standard handle closed there, so a lost answer is a failed write.
func lostOutput(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || runtime.GOOS == "windows" {
		return false
	}
	out, err := f.Stat()
	if err != nil {
		// Not known to be the null device (Windows cannot stat every
		// kind of handle): the answer is written and a failed write says so.
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(out, null)
}

// runHook answers one event: its context on stdout, printed while the
// session's state is locked and saved only once printed; warnings go to
// stderr.
func runHook(cmd *cobra.Command, env *clienv.Env, h *hooks.Harness, f hooks.Flags) error {
	data, err := io.ReadAll(io.LimitReader(env.Stdin, hooks.MaxEventBytes+1))
	if err != nil {
		return fmt.Errorf("read event: %w", err)
	}
	if len(data) > hooks.MaxEventBytes {
		return fmt.Errorf("event larger than %d bytes", hooks.MaxEventBytes)
	}
	if h == hooks.Claude && hooks.IsCursorEvent(data) {
		// Cursor runs Claude Code's hook entries too (third-party hooks):
		// it reads the answer as Cursor, and the session is Cursor's.
		h = hooks.Cursor
	}
	ev, err := h.ParseEvent(data)
	if err != nil {
		return err
	}
	if f.Record && recordsOn(ev) {
		// After the answer: recording never delays or changes it.
		defer record(cmd.Context(), env, h, ev)
	}
	if ev.Kind == hooks.Ignored {
		// Some events want an answer all the same (Cursor's beforeReadFile:
		// a permission).
		out, err := h.Output(ev, "")
		if err == nil && len(out) > 0 {
			_, err = env.Stdout.Write(out)
		}
		return err
	}
	if lostOutput(env.Stdout) {
		// Nothing is read or saved: the next event answers as if this
		// one never came, so the harness gets the context then.
		return errors.New("write the answer: stdout is closed or the null device, the harness would never read it")
	}
	clock, err := env.Clock()
	if err != nil {
		return err
	}
	// Without a state directory the hook still answers, statelessly
	// (hooks.Handle says so on stderr).
	sessions := env.Host().StatePath("sessions")
	file, flags, err := hookSettings(env, h, f, ev.Cwd)
	if err != nil {
		return err
	}
	fromEnv, warnings := env.Host().Instructions()
	clienv.InstructionsWarn(env, warnings)
	home := env.Host().Home
	cfg := instructions.BuildConfig(ev.Cwd, file, fromEnv, flags)
	res, err := hooks.Handle(cmd.Context(), h, ev, hooks.Options{
		Instructions: instructions.Options{Config: cfg, Home: home},
		Skills:       clienv.HookSkills(env, ev.Cwd, home, cfg.Root),
		SessionsDir:  sessions,
		Slug:         f.Slug,
		Now:          clock,
		Env:          hooks.Env{Lookup: env.Host().Lookup, Home: home},
		Out:          env.Stdout,
		Handoff:      pendingHandoff(env, h, clock),
		Memory:       sessionMemory(cmd.Context(), env, h, cfg.Root, f.Slug),
	})
	clienv.InstructionsWarn(env, res.Warnings)
	return err
}

// installLong is the help of hook install and uninstall after their
// one-line summary.
const installLong = `. Only lineage's own entries change: every
other key, hook and byte of the file is kept, a second install changes
nothing, and the file is replaced atomically. --dry-run prints the diff and
writes nothing.

The hook runs this binary by its absolute path (symlinks resolved), since a
harness may not have lineage on its PATH; with --scope project it runs
"lineage" from PATH, since that file is committed and shared by every
checkout and teammate (install says so). --command CMD writes CMD instead
(e.g. --command lineage, or --command /opt/bin/lineage). Uninstall and a reinstall recognise lineage's
entries by "hook <harness>" after any program named lineage (or CMD).

--file-names, --config and --slug are written into the installed command, so
the hook resolves the names you chose (e.g. --file-names CLAUDE.md,AGENTS.md).
--config is written as an absolute path, except with --scope project: there
it is relative to the project directory and must lie inside it, and the hook
finds it from the project directory the harness names, or from its working
directory or one above it.

Files: claude $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json
(user), .claude/settings.json (project), .claude/settings.local.json (local);
gemini $GEMINI_CLI_HOME/.gemini/settings.json, else ~/.gemini/settings.json,
and .gemini/settings.json; codex $CODEX_HOME/hooks.json, else
~/.codex/hooks.json, and .codex/hooks.json; cursor ~/.cursor/hooks.json and
.cursor/hooks.json; copilot $COPILOT_HOME/hooks/lineage.json, else
~/.copilot/hooks/lineage.json, and .github/hooks/lineage.json (a file of
lineage's own in Copilot CLI's hooks folder); opencode (a plugin, not a settings
entry) $XDG_CONFIG_HOME/opencode/plugins/lineage.js, else
~/.config/opencode/plugins/lineage.js, and .opencode/plugins/lineage.js: install
refuses to replace a file there that lineage did not write, uninstall removes
lineage's. Project and local paths are under
--cwd (default: the current directory). Codex CLI runs a new or changed hook
only after you trust it: install prints the step.`

func newHookInstallCmd(env *clienv.Env, install bool) *cobra.Command {
	var scope, cwd, command string
	var f hooks.Flags
	var dryRun bool
	verb, short := "install", "Add lineage's hooks to a harness's settings file"
	if !install {
		verb, short = "uninstall", "Remove lineage's hooks from a harness's settings file"
	}
	cmd := &cobra.Command{
		Use:   verb + " " + harnessAlts() + " [--scope user|project|local] [--dry-run] [--command CMD] [--file-names N,…] [--config FILE] [--slug S] [--record]",
		Short: short,
		Long:  short + installLong,
		Args:  clienv.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			h := hooks.HarnessNamed(args[0])
			if h == nil {
				return clienv.UsageError("unknown harness %q (want %s)", args[0], harnessChoice())
			}
			if f.Record && len(h.RecordEvents) == 0 {
				return clienv.UsageError("--record: lineage does not read %s's transcripts yet, so its sessions cannot be recorded", h.Title)
			}
			if err := installedFlags(env, &f, scope, fsx.Abs(env.Dir, cwd)); err != nil {
				return err
			}
			path, err := h.SettingsPath(scope, hooks.Env{Lookup: env.Host().Lookup, Home: env.Host().Home}, fsx.Abs(env.Dir, cwd))
			if err != nil {
				return clienv.UsageError("%v", err)
			}
			program, err := hookProgram(command, scope)
			if err != nil {
				return err
			}
			if err := editSettings(cmd.Context(), env, h, path, scope, install, program, f, dryRun); err != nil || !install || dryRun {
				return err
			}
			if scope == hooks.ScopeProject {
				fmt.Fprintf(env.Stderr, "lineage: the hook runs %s (a project file is shared: %s)\n",
					strconv.Quote(h.Command(program, f)), sharedProgramNote(command))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&scope, "scope", hooks.ScopeUser, "settings `scope`: user, project or local (claude only)")
	cmd.Flags().StringVar(&cwd, "cwd", "", "project directory for --scope project|local (default: the current directory)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the diff, write nothing")
	cmd.Flags().StringVar(&command, "command", "", "the hook's program as the harness's shell reads it (default: this binary's absolute path; lineage for --scope project)")
	if install {
		cmd.Flags().StringVar(&f.Slug, "slug", "", "run the hook with --slug S (the agent's guardrails at session start)")
		cmd.Flags().StringVar(&f.FileNames, "file-names", "", "run the hook with --file-names `names` (comma-separated instruction file names)")
		cmd.Flags().StringVar(&f.Config, "config", "", "run the hook with --config `file` (made absolute; relative to the project for --scope project)")
		cmd.Flags().BoolVar(&f.Record, "record", false, "also run the hook when a turn ends, recording the session into the sessions store (see 'lineage sessions')")
	}
	return cmd
}

// installedFlags puts the flags an installed hook command carries in the
// form it is written in: --file-names as a clean comma list of plain file
// names, --config as installedConfig writes it for scope (dir: the project
// directory).
func installedFlags(env *clienv.Env, f *hooks.Flags, scope, dir string) error {
	if f.FileNames != "" {
		names := instructions.SplitList(f.FileNames)
		if names == nil || strings.ContainsAny(f.FileNames, `/\`) {
			return clienv.UsageError("--file-names must be plain file names, got %q", f.FileNames)
		}
		f.FileNames = strings.Join(names, ",")
	}
	if f.Config == "" {
		return nil
	}
	config, err := installedConfig(env, f.Config, scope, dir)
	if err != nil {
		return err
	}
	f.Config = config
	return nil
}

// hookProgram is the program a hook entry runs: --command as given, else
// for the project scope "lineage" (the file is committed for the whole
// team: every checkout and machine finds lineage on its own PATH), else
// this binary by its absolute path.
func hookProgram(command, scope string) (string, error) {
	switch {
	case strings.ContainsAny(command, "\r\n\x00"):
		return "", clienv.UsageError("--command %q: want one line", command)
	case strings.TrimSpace(command) != "":
		return strings.TrimSpace(command), nil
	case command != "":
		return "", clienv.UsageError("--command is empty")
	case scope == hooks.ScopeProject:
		return "lineage", nil
	}
	return hooks.RunningProgram()
}

// sharedProgramNote says where a project file's program comes from.
func sharedProgramNote(command string) string {
	if command != "" {
		return "--command's program must run on every teammate's machine"
	}
	return "lineage is found on each teammate's PATH; --command sets another program"
}

func editSettings(ctx context.Context, env *clienv.Env, h *hooks.Harness, path, scope string, install bool, program string, f hooks.Flags, dryRun bool) error {
	if h == hooks.Opencode && !install {
		return removePlugin(env, h, path, dryRun)
	}
	res, done, err := clienv.EditHarnessFile(ctx, env, path, install, dryRun,
		func(before []byte) ([]byte, error) { return h.Install(before, program, f) },
		func(before []byte) ([]byte, error) { return h.Uninstall(before, program) })
	if done || err != nil {
		return err
	}
	if !res.Written {
		fmt.Fprintf(env.Stderr, "lineage: %s already up to date\n", path)
		trustStep(env, h, install, scope)
		return nil
	}
	if res.Target != path {
		fmt.Fprintf(env.Stderr, "lineage: updated %s (through the symbolic link %s)\n", res.Target, path)
		trustStep(env, h, install, scope)
		return nil
	}
	fmt.Fprintf(env.Stderr, "lineage: updated %s\n", path)
	trustStep(env, h, install, scope)
	return nil
}

// trustStep prints the approval a harness needs before it runs a new or
// changed hook; lineage never writes the approval itself.
func trustStep(env *clienv.Env, h *hooks.Harness, install bool, scope string) {
	if step := h.TrustStep(scope); install && step != "" {
		fmt.Fprintln(env.Stderr, "lineage: "+step)
	}
}

func newHookStatusCmd(env *clienv.Env) *cobra.Command {
	var asJSON bool
	var cwd string
	cmd := &cobra.Command{
		Use:   "status [" + harnessAlts() + "] [--json] [--cwd DIR]",
		Short: "Say where lineage's hooks are installed and whether each harness will run them",
		Long: `For each harness (or the one named): where lineage's hook is installed (user,
project and local scope of --cwd), with which command and file names, whether
that program exists, whether the harness will run it (hooks on; for Codex CLI,
trusted), the harness version found, and what the hook sends at a start
(names the harness loads itself, names lineage resolves).

Exit 0 when every installed hook will run, 1 otherwise (or when none is
installed).`,
		Args: clienv.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			hs := hooks.Harnesses()
			if len(args) == 1 {
				h := hooks.HarnessNamed(args[0])
				if h == nil {
					return clienv.UsageError("unknown harness %q (want %s)", args[0], harnessChoice())
				}
				hs = []*hooks.Harness{h}
			}
			hookEnv := hooks.Env{Lookup: env.Host().Lookup, Home: env.Host().Home}
			project := fsx.Abs(env.Dir, cwd)
			var all []hooks.Status
			ok, any := true, false
			for _, h := range hs {
				st := hooks.HookStatus(h, hookEnv, project)
				if err := statusHandoff(env, &st, project); err != nil {
					return err
				}
				all = append(all, st)
				for _, in := range st.Installs {
					any = true
					ok = ok && in.WillRun
				}
			}
			if asJSON {
				if err := clienv.WriteJSON(env.Stdout, all); err != nil {
					return err
				}
			} else {
				printHookStatus(env.Stdout, all)
			}
			if !ok || !any {
				return clienv.SilentExit(clienv.ExitFailure)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&cwd, "cwd", "", "project directory for the project and local scopes (default: the current directory)")
	return cmd
}

func printHookStatus(w io.Writer, all []hooks.Status) {
	for _, st := range all {
		h := hooks.HarnessNamed(st.Harness)
		version := st.Version
		if version == "" {
			version = "version not found"
		}
		fmt.Fprintf(w, "%s (%s)\n", h.Title, version)
		if len(st.Installs) == 0 {
			fmt.Fprintf(w, "  not installed (lineage hook install %s)\n", st.Harness)
		}
		for _, in := range st.Installs {
			state := "will run"
			if !in.WillRun {
				state = "will NOT run: " + strings.Join(in.Problems, "; ")
			}
			fmt.Fprintf(w, "  %s %s: %s\n", in.Scope, fsx.LineSafe(in.File), state)
			fmt.Fprintf(w, "    command: %s\n", fsx.LineSafe(in.Command))
			fmt.Fprintf(w, "    events: %s; names: %s\n", strings.Join(in.Events, ", "), strings.Join(in.FileNames, ","))
			if in.Records {
				fmt.Fprintf(w, "    records each session into the sessions store (lineage sessions list)\n")
			}
		}
		if p := st.Handoff; p != nil {
			fmt.Fprintf(w, "  pending handoff %s of %s at %s: delivered at the next session start in %s, until %s\n",
				p.Tract, p.Session, shortHash(p.At), fsx.LineSafe(p.Project), p.Expires.Format(time.RFC3339))
		}
		if st.Known {
			fmt.Fprintf(w, "  at start: %s loads %s itself (%s); lineage sends the bodies of the other files it resolves\n", h.Title, orNone(st.NativeNames), st.How)
		} else {
			fmt.Fprintf(w, "  at start: %s; lineage sends paths, not bodies\n", st.How)
		}
	}
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "no instruction file"
	}
	return strings.Join(names, ", ")
}

// harnessChoice names the harnesses for a message: "claude, gemini, … or
// opencode".
func harnessChoice() string {
	hs := hooks.Harnesses()
	names := make([]string, len(hs))
	for i, h := range hs {
		names[i] = h.Name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// harnessAlts is the harnesses as a usage line's alternatives.
func harnessAlts() string {
	var names []string
	for _, h := range hooks.Harnesses() {
		names = append(names, h.Name)
	}
	return strings.Join(names, "|")
}
