package memorycmd

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/memory"
	"github.com/agentlineage/lineage/tract"
)

func addCmd(env *clienv.Env) *cobra.Command {
	var (
		wf                      whereFlags
		scope, session, harness string
		asJSON                  clienv.JSONFlag
	)
	cmd := &cobra.Command{
		Use:   "add TEXT... [--scope user|project|agent] [--slug S] [--session ID] [--harness NAME]",
		Short: "Save a memory (one commit on its scope's tract)",
		Long: `Save a memory: TEXT (the arguments joined by spaces, or '-' for stdin), at
most 4096 bytes, in a scope: project (default; the folder's project root),
user, or agent (--slug; --scope agent is the default with --slug). --session
and --harness record where it was said; they show in every delivery of it.`,
		Args: clienv.MinArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if scope == "" {
				scope = string(memory.Project)
				if wf.slug != "" {
					scope = string(memory.Agent)
				}
			}
			kind, err := memory.ParseKind(scope)
			if err != nil {
				return clienv.UsageError("--scope %q: want user, project or agent", scope)
			}
			if kind == memory.Agent && wf.slug == "" {
				return clienv.UsageError("--scope agent needs --slug")
			}
			w, err := wf.where(env)
			if err != nil {
				return err
			}
			if _, err := w.Scope(kind); err != nil {
				return memErr(err)
			}
			text, err := readText(env, args)
			if err != nil {
				return err
			}
			if err := memory.ValidateText(strings.TrimSpace(text)); err != nil {
				return memErr(err)
			}
			m, err := wf.apply(cmd.Context(), env, true, func(ctx context.Context, repo *tract.Repo) (memory.Memory, error) {
				return memory.Add(ctx, repo, memory.AddOptions{Where: w, Kind: kind, Text: text, Session: session, Harness: harness})
			})
			return done(env, asJSON, m, err, "added %s memory %s\n", m.Scope, m.ID)
		},
	}
	wf.add(cmd)
	cmd.Flags().StringVar(&scope, "scope", "", "user, project or agent (default project; agent with --slug)")
	cmd.Flags().StringVar(&session, "session", "", "the harness session it was said in (provenance)")
	cmd.Flags().StringVar(&harness, "harness", "", "the harness it was said in: claude, codex, gemini, … (provenance)")
	asJSON.Add(cmd, "print the memory as JSON")
	return cmd
}

// listing is what `memory list --json` prints.
type listing struct {
	Memories []memory.Memory `json:"memories"`
}

func listCmd(env *clienv.Env) *cobra.Command {
	var (
		wf       whereFlags
		scope    string
		noNative bool
		asJSON   clienv.JSONFlag
	)
	cmd := &cobra.Command{
		Use:   "list [--scope user|project|agent] [--slug S] [--no-native]",
		Short: "List the memories of this user, project and agent, newest first",
		Long: `List the memories this user, the folder's project and the agent (--slug) see,
newest first: lineage's own (with their id), then those the harnesses keep
themselves (Claude Code's auto memory MEMORY.md of the project, Gemini CLI's
"Gemini Added Memories" in GEMINI.md; id -, never sent to that harness by
lineage) unless --no-native, then with --slug the agent's newest agency journal
entries. Each line ends with where the memory came from.`,
		Args: clienv.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var kind memory.Kind
			if scope != "" {
				var err error
				if kind, err = memory.ParseKind(scope); err != nil {
					return clienv.UsageError("--scope %q: want user, project or agent", scope)
				}
			}
			w, err := wf.where(env)
			if err != nil {
				return err
			}
			st, err := clienv.OpenSessions(cmd.Context(), env, wf.store, false)
			if err != nil {
				return err
			}
			defer st.Close()
			all, err := memory.List(cmd.Context(), st.Repo, w)
			if err != nil {
				return err
			}
			if !noNative {
				native, warnings := memory.Native(memory.NativeEnv{Getenv: env.Host().Var, Home: env.Host().Home}, w)
				for _, s := range warnings {
					fmt.Fprintf(env.Stderr, "lineage: warning: %s\n", s)
				}
				all = append(all, native...)
			}
			journal, warning := memory.Journal(agents.Options{Path: w.Cwd}, w.Slug)
			if warning != "" {
				fmt.Fprintf(env.Stderr, "lineage: warning: %s\n", fsx.LineSafe(warning))
			}
			all = append(all, journal...)
			out := listing{Memories: []memory.Memory{}}
			for _, m := range all {
				if kind == "" || m.Scope == kind {
					out.Memories = append(out.Memories, m)
				}
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, out)
			}
			var b strings.Builder
			for _, m := range out.Memories {
				b.WriteString(line(m) + "\n")
			}
			_, err = fmt.Fprint(env.Stdout, b.String())
			return err
		},
	}
	wf.add(cmd)
	cmd.Flags().StringVar(&scope, "scope", "", "only this scope: user, project or agent")
	cmd.Flags().BoolVar(&noNative, "no-native", false, "leave out the memories the harnesses keep themselves")
	asJSON.Add(cmd, "print {\"memories\":[…]}")
	return cmd
}

func showCmd(env *clienv.Env) *cobra.Command {
	var (
		wf     whereFlags
		asJSON clienv.JSONFlag
	)
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one memory: its text, provenance and tract",
		Args:  clienv.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := wf.where(env)
			if err != nil {
				return err
			}
			m, err := wf.apply(cmd.Context(), env, false, func(ctx context.Context, repo *tract.Repo) (memory.Memory, error) {
				return memory.Get(ctx, repo, w, args[0])
			})
			if err != nil || asJSON.Set {
				return done(env, asJSON, m, err, "")
			}
			return printShow(env, m, wf.storeName(env))
		},
	}
	wf.add(cmd)
	asJSON.Add(cmd, "print the memory as JSON")
	return cmd
}

func printShow(env *clienv.Env, m memory.Memory, store string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "memory %s (%s)\n", m.ID, m.Scope)
	switch {
	case m.Project != "":
		fmt.Fprintf(&b, "project: %s\n", fsx.LineSafe(m.Project))
	case m.Slug != "":
		fmt.Fprintf(&b, "agent: %s\n", m.Slug)
	}
	fmt.Fprintf(&b, "saved: %s", m.Created.Format(time.RFC3339))
	if m.Harness != "" {
		fmt.Fprintf(&b, " in %s", m.Harness)
	}
	if m.Session != "" {
		fmt.Fprintf(&b, " session %s", m.Session)
	}
	if m.Cwd != "" {
		fmt.Fprintf(&b, " at %s", fsx.LineSafe(m.Cwd))
	}
	b.WriteString("\n")
	if !m.Edited.IsZero() {
		fmt.Fprintf(&b, "edited: %s\n", m.Edited.Format(time.RFC3339))
	}
	fmt.Fprintf(&b, "commit: %s\ntract: %s\nhistory: lineage tract log --tract %s --store %s\n\n", m.Commit, m.Tract, m.Tract, shellWord(store))
	b.WriteString(m.Text + "\n")
	_, err := fmt.Fprint(env.Stdout, b.String())
	return err
}

func editCmd(env *clienv.Env) *cobra.Command {
	var (
		wf     whereFlags
		asJSON clienv.JSONFlag
	)
	cmd := &cobra.Command{
		Use:   "edit ID TEXT...",
		Short: "Replace a memory's text (a tract edit: the old text stays in its history)",
		Args:  clienv.MinArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := wf.where(env)
			if err != nil {
				return err
			}
			text, err := readText(env, args[1:])
			if err != nil {
				return err
			}
			if err := memory.ValidateText(strings.TrimSpace(text)); err != nil {
				return memErr(err)
			}
			m, err := wf.apply(cmd.Context(), env, true, func(ctx context.Context, repo *tract.Repo) (memory.Memory, error) {
				return memory.Edit(ctx, repo, w, args[0], text)
			})
			return done(env, asJSON, m, err, "edited %s memory %s\n", m.Scope, m.ID)
		},
	}
	wf.add(cmd)
	asJSON.Add(cmd, "print the memory as JSON")
	return cmd
}

func forgetCmd(env *clienv.Env) *cobra.Command {
	var (
		wf     whereFlags
		asJSON clienv.JSONFlag
	)
	cmd := &cobra.Command{
		Use:   "forget ID",
		Short: "Forget a memory (a skip annotation: 'lineage tract annotate ID normal' brings it back)",
		Args:  clienv.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := wf.where(env)
			if err != nil {
				return err
			}
			m, err := wf.apply(cmd.Context(), env, true, func(ctx context.Context, repo *tract.Repo) (memory.Memory, error) {
				return memory.Forget(ctx, repo, w, args[0])
			})
			return done(env, asJSON, m, err, "forgot %s memory %s (lineage tract annotate %s normal --tract %s brings it back)\n", m.Scope, m.ID, m.ID, m.Tract)
		},
	}
	wf.add(cmd)
	asJSON.Add(cmd, "print the forgotten memory as JSON")
	return cmd
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	safe := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,"
	if filepath.Separator == '\\' {
		safe += "\\" // a path as Windows prints it
	}
	if s != "" && strings.Trim(s, safe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(fsx.LineSafe(s), "'", `'\''`) + "'"
}

// apply opens the sessions store (for writing when write) and runs op on
// it: what add, show, edit and forget share once their input is checked.
func (f *whereFlags) apply(ctx context.Context, env *clienv.Env, write bool, op func(context.Context, *tract.Repo) (memory.Memory, error)) (memory.Memory, error) {
	st, err := clienv.OpenSessions(ctx, env, f.store, write)
	if err != nil {
		return memory.Memory{}, err
	}
	defer st.Close()
	m, err := op(ctx, st.Repo)
	if err != nil {
		return memory.Memory{}, memErr(err)
	}
	return m, nil
}

// done prints a verb's result: the memory as JSON with --json, else the
// line format makes of args; an error from the verb is returned as it is.
func done(env *clienv.Env, asJSON clienv.JSONFlag, m memory.Memory, err error, format string, args ...any) error {
	switch {
	case err != nil:
		return err
	case asJSON.Set:
		return clienv.WriteJSON(env.Stdout, m)
	}
	_, err = fmt.Fprintf(env.Stdout, format, args...)
	return err
}
