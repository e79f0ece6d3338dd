package instructionscmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
)

func newInstructionsInitialCmd(env *clienv.Env, f *clienv.InstructionsFlags) *cobra.Command {
	var state string
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "initial",
		Short: "Print the initial AGENTS.md chain from the root to the working directory",
		Long: `Print the <agents_context scope="initial"> block: each directory's AGENTS.md from
the project root down to the working directory, under the file and byte caps.
Nothing is printed when nothing was loaded. With --state, a new session state
is started in FILE (replacing any there).`,
		Args: clienv.ExactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := f.Options(cmd, env)
			if err != nil {
				return err
			}
			if asJSON.Set {
				opts.Tokens = instructions.DefaultTokenCounter()
			}
			var in instructions.Initial
			if state == "" {
				_, in = instructions.Start(opts)
			} else if _, in, err = instructions.StartSession(cmd.Context(), fsx.Abs(env.Dir, state), opts); err != nil {
				return err
			}
			clienv.InstructionsWarn(env, in.Warnings)
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, in)
			}
			return printText(env, in.Text)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "start a session state in `FILE`")
	asJSON.Add(cmd, "")
	return cmd
}

func newInstructionsResolveCmd(env *clienv.Env, f *clienv.InstructionsFlags) *cobra.Command {
	var state string
	var reminder bool
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "resolve TARGET... --state FILE",
		Short: "Report the AGENTS.md files a target needs that the session does not know yet",
		Long: `Resolve each target in order against the session in FILE and save it. A file
is reported once when it is new to the session and again when it changes
(mtime or size). A missing FILE starts a session with the initial load first.
Concurrent resolves on one FILE are serialized: each file is reported once.

Text output is one path per line; --reminder prints the agents.resolve.paths
system reminder instead.`,
		Args: clienv.MinArgs(1),
		RunE: func(cmd *cobra.Command, targets []string) error {
			if state == "" {
				return clienv.UsageError("resolve needs --state FILE")
			}
			if asJSON.Set && reminder {
				return clienv.UsageError("--json and --reminder cannot be used together")
			}
			opts, err := f.Options(cmd, env)
			if err != nil {
				return err
			}
			var out []instructions.Resolution
			err = instructions.UpdateSession(cmd.Context(), fsx.Abs(env.Dir, state), opts, func(sess *instructions.Session, started *instructions.Initial) error {
				if started != nil {
					clienv.InstructionsWarn(env, started.Warnings)
				}
				for _, t := range targets {
					out = append(out, sess.Resolve(t))
				}
				return nil
			})
			if err != nil {
				return err
			}
			return printResolutions(env, out, asJSON.Set, reminder, opts.Config.FileNames)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "session state `FILE` (required)")
	asJSON.Add(cmd, "")
	cmd.Flags().BoolVar(&reminder, "reminder", false, "print the agents.resolve.paths reminder")
	return cmd
}

func printResolutions(env *clienv.Env, out []instructions.Resolution, asJSON, reminder bool, names []string) error {
	if asJSON {
		return clienv.WriteJSON(env.Stdout, struct {
			Targets []instructions.Resolution `json:"targets"`
		}{out})
	}
	var files []instructions.File
	for _, r := range out {
		files = append(files, r.Files...)
	}
	if reminder {
		return printText(env, instructions.ResolveReminderNamed(files, names))
	}
	for _, f := range files {
		if _, err := fmt.Fprintln(env.Stdout, fsx.LineSafe(f.Path)); err != nil {
			return err
		}
	}
	return nil
}

func newInstructionsResumeCmd(env *clienv.Env, f *clienv.InstructionsFlags) *cobra.Command {
	var state string
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "resume --state FILE",
		Short: "Print what changed since the session in FILE was saved, then update FILE",
		Long: `Compare the session saved in FILE with the current working directory, root,
markers and initial chain. Prints the session.resume.diff system reminder, or
nothing when nothing differs, then saves the current session in FILE.`,
		Args: clienv.ExactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if state == "" {
				return clienv.UsageError("resume needs --state FILE")
			}
			opts, err := f.Options(cmd, env)
			if err != nil {
				return err
			}
			path := fsx.Abs(env.Dir, state)
			r, err := instructions.ResumeSession(cmd.Context(), path, opts)
			if errors.Is(err, instructions.ErrNoSession) {
				return errors.New("no session state in " + path + " (start one with 'lineage instructions initial --state')")
			}
			if err != nil {
				return err
			}
			clienv.InstructionsWarn(env, r.Warnings)
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, struct {
					Reminder string `json:"reminder"`
					State    string `json:"state"`
				}{r.Text, path})
			}
			return printText(env, r.Text)
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "session state `FILE` (required)")
	asJSON.Add(cmd, `print {"reminder", "state"} (the reminder "" when nothing changed)`)
	return cmd
}

// printText prints text and a newline, or nothing for "".
func printText(env *clienv.Env, text string) error {
	if text == "" {
		return nil
	}
	_, err := fmt.Fprintln(env.Stdout, text)
	return err
}
