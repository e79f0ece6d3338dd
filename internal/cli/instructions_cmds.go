package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
)

func newInstructionsInitialCmd(env *Env, f *instructionsFlags) *cobra.Command {
	var state string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "initial",
		Short: "Print the initial AGENTS.md chain from the root to the working directory",
		Long: `Print the <agents_context scope="initial"> block: each directory's AGENTS.md from
the project root down to the working directory, under the file and byte caps.
Nothing is printed when nothing was loaded. With --state, a new session state
is started in FILE (replacing any there).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := f.options(cmd, env)
			if err != nil {
				return err
			}
			sess, in := instructions.Start(opts)
			instructionsWarn(env, in.Warnings)
			if state != "" {
				if err := instructions.WriteState(cmd.Context(), fsx.Abs(env.Dir, state), sess.State()); err != nil {
					return err
				}
			}
			if asJSON {
				return writeJSON(env.Stdout, in)
			}
			return printText(env, in.Text)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "start a session state in `FILE`")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newInstructionsResolveCmd(env *Env, f *instructionsFlags) *cobra.Command {
	var state string
	var asJSON, reminder bool
	cmd := &cobra.Command{
		Use:   "resolve TARGET... --state FILE",
		Short: "Report the AGENTS.md files a target needs that the session does not know yet",
		Long: `Resolve each target in order against the session in FILE and save it. A file
is reported once when it is new to the session and again when it changes
(mtime or size). A missing FILE starts a session with the initial load first.
Concurrent resolves on one FILE are serialized: each file is reported once.

Text output is one path per line; --reminder prints the agents.resolve.paths
system reminder instead.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, targets []string) error {
			if state == "" {
				return usageError("resolve needs --state FILE")
			}
			if asJSON && reminder {
				return usageError("--json and --reminder cannot be used together")
			}
			opts, err := f.options(cmd, env)
			if err != nil {
				return err
			}
			var out []instructions.Resolution
			err = instructions.UpdateState(cmd.Context(), fsx.Abs(env.Dir, state), func(st *instructions.State) (instructions.State, error) {
				var sess *instructions.Session
				if st == nil {
					var in instructions.Initial
					sess, in = instructions.Start(opts)
					instructionsWarn(env, in.Warnings)
				} else {
					sess = instructions.Restore(*st, opts)
				}
				for _, t := range targets {
					out = append(out, sess.Resolve(t))
				}
				return sess.State(), nil
			})
			if err != nil {
				return err
			}
			return printResolutions(env, out, asJSON, reminder)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "session state `FILE` (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&reminder, "reminder", false, "print the agents.resolve.paths reminder")
	return cmd
}

func printResolutions(env *Env, out []instructions.Resolution, asJSON, reminder bool) error {
	if asJSON {
		return writeJSON(env.Stdout, struct {
			Targets []instructions.Resolution `json:"targets"`
		}{out})
	}
	var files []instructions.File
	for _, r := range out {
		files = append(files, r.Files...)
	}
	if reminder {
		return printText(env, instructions.ResolveReminder(files))
	}
	for _, f := range files {
		if _, err := fmt.Fprintln(env.Stdout, fsx.LineSafe(f.Path)); err != nil {
			return err
		}
	}
	return nil
}

func newInstructionsExplainCmd(env *Env, f *instructionsFlags) *cobra.Command {
	var asJSON, strict bool
	cmd := &cobra.Command{
		Use:   "explain [TARGET]",
		Short: "Show how the root was chosen and what became of each directory's AGENTS.md",
		Long: `Show the root, how it was chosen, and every directory of the chain from the root
to the working directory (or to TARGET's directory) with its status: loaded,
missing, skipped:max-files, skipped:max-bytes, not-regular-file, unreadable,
duplicate, empty or outside-root.

With --strict the command exits 3 when a file was skipped by a cap or was
unreadable.`,
		Args: rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := f.options(cmd, env)
			if err != nil {
				return err
			}
			target := ""
			if len(args) == 1 {
				if target = args[0]; target == "" {
					return usageError("TARGET must not be empty")
				}
			}
			e := instructions.Explain(opts, target)
			instructionsWarn(env, e.Warnings)
			if asJSON {
				err = writeJSON(env.Stdout, e)
			} else {
				err = printExplanation(env.Stdout, e)
			}
			if err != nil {
				return err
			}
			if n := len(e.Findings()); strict && n > 0 {
				return findingError(fmt.Errorf("strict: %d file(s) skipped by a cap or unreadable", n))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 3 when a file was skipped by a cap or unreadable")
	return cmd
}

func newInstructionsResumeCmd(env *Env, f *instructionsFlags) *cobra.Command {
	var state string
	cmd := &cobra.Command{
		Use:   "resume --state FILE",
		Short: "Print what changed since the session in FILE was saved, then update FILE",
		Long: `Compare the session saved in FILE with the current working directory, root,
markers and initial chain. Prints the session.resume.diff system reminder, or
nothing when nothing differs, then saves the current session in FILE.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if state == "" {
				return usageError("resume needs --state FILE")
			}
			opts, err := f.options(cmd, env)
			if err != nil {
				return err
			}
			path := fsx.Abs(env.Dir, state)
			var text string
			err = instructions.UpdateState(cmd.Context(), path, func(st *instructions.State) (instructions.State, error) {
				if st == nil {
					return instructions.State{}, errors.New("no session state in " + path + " (start one with 'lineage instructions initial --state')")
				}
				r := instructions.Resume(*st, opts)
				instructionsWarn(env, r.Warnings)
				text = r.Text
				return r.Session.State(), nil
			})
			if err != nil {
				return err
			}
			return printText(env, text)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "session state `FILE` (required)")
	return cmd
}

// printText prints text and a newline, or nothing for "".
func printText(env *Env, text string) error {
	if text == "" {
		return nil
	}
	_, err := fmt.Fprintln(env.Stdout, text)
	return err
}
