package sessionscmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/sessions"
)

// Short is the group's one-line help.
const Short = "Harness sessions (Claude Code, Codex CLI, Gemini CLI) in tract: import, watch, list, show, log, find"

// NewCmd builds `lineage sessions`.
func NewCmd(env *clienv.Env) *cobra.Command {
	cmd := clienv.GroupCmd("sessions", Short, `Bring the sessions of coding harnesses into tract and search them. Each session
becomes a tract named after its harness and id, in one user-level store (under
the state directory; --store, LINEAGE_SESSIONS_STORE or LINEAGE_STORE for
another): messages, tool calls and results, reasoning, injected context
(marked; lineage's own is never compiled twice), compactions as summaries,
rewinds as branches, subagents and forks as spawned tracts. An import is
idempotent and reads only what is new in a grown transcript. Secrets are
masked unless --keep-secrets. See docs/sessions.md.`)
	cmd.Example = `  lineage sessions import                         # this project's Claude Code, Codex and Gemini sessions
  lineage sessions list
  lineage sessions find "migration plan"
  lineage sessions import --all --from codex`
	cmd.AddCommand(importCmd(env), watchCmd(env), listCmd(env), showCmd(env), logCmd(env), findCmd(env), forkCmd(env))
	return cmd
}

func importCmd(env *clienv.Env) *cobra.Command {
	var (
		sf     storeFlags
		from   string
		all    bool
		keep   bool
		asJSON clienv.JSONFlag
	)
	cmd := &cobra.Command{
		Use:   "import [--from claude|codex|gemini] [PATH...] [--all] [--keep-secrets]",
		Short: "Import harness transcripts (default: this project's sessions)",
		Long: `Import transcripts into the sessions store. Without PATH, the harness's own
session folders for the working directory's project are read (Claude Code:
$CLAUDE_CONFIG_DIR or ~/.claude, projects/<project path with "-" for each
character other than a letter or digit>; Codex CLI: $CODEX_HOME or ~/.codex,
the rollouts under sessions/ started in the project; Gemini CLI:
$GEMINI_CLI_HOME/.gemini or ~/.gemini, tmp/<project>/chats); --all reads every
project. A PATH is a transcript file or a folder of them; its harness is told
from its first line unless --from says it. A second import adds nothing; a grown
transcript adds only its new records. A record type lineage has not
classified fails the import (exit 3) and nothing is written.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			harnesses, err := parseFrom(from)
			if err != nil {
				return err
			}
			srcs, err := sources(env, harnesses, args, all)
			if err != nil {
				return err
			}
			repo, done, err := sf.open(cmd.Context(), env, true)
			if err != nil {
				return err
			}
			defer done()
			rep, err := (&sessions.Importer{Repo: repo, KeepSecrets: keep, LockPath: sf.lock}).Import(cmd.Context(), srcs)
			if err != nil {
				return importErr(err)
			}
			for _, s := range rep.Sessions {
				for _, w := range s.Warnings {
					fmt.Fprintf(env.Stderr, "warning: %s: %s\n", s.Tract, w)
				}
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, rep)
			}
			writeReport(env.Stdout, rep)
			return nil
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVar(&from, "from", "", "the harness: claude, codex or gemini (default: every harness lineage reads)")
	cmd.Flags().BoolVar(&all, "all", false, "import the sessions of every project, not only this one")
	cmd.Flags().BoolVar(&keep, "keep-secrets", false, "store what looks like an API key, token or private key in clear")
	asJSON.Add(cmd, "print the import's report as JSON")
	return cmd
}

func parseFrom(from string) ([]sessions.Harness, error) {
	if from == "" {
		return nil, nil
	}
	h := sessions.Harness(from)
	if !slices.Contains(sessions.Harnesses, h) {
		return nil, clienv.UsageError("unknown --from %q (want claude, codex or gemini)", from)
	}
	if _, ok := sessions.DefaultReaders()[h]; !ok {
		return nil, clienv.UsageError("--from %s: lineage cannot read %s transcripts yet", from, from)
	}
	return []sessions.Harness{h}, nil
}

// sources lists what to import: the PATHs (files, or folders of .jsonl
// files), else the harnesses' folders for the project.
func sources(env *clienv.Env, harnesses []sessions.Harness, paths []string, all bool) ([]sessions.Source, error) {
	if len(paths) == 0 {
		return sessions.Discover(harnesses, sessions.Env{Getenv: env.Getenv, Home: env.Host().Home}, env.Dir, all)
	}
	if all {
		return nil, clienv.UsageError("--all reads the harnesses' own folders: give it without PATH")
	}
	var out []sessions.Source
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.Dir, p)
		}
		files, err := transcriptFiles(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			h, err := harnessOf(f, harnesses)
			if err != nil {
				return nil, err
			}
			out = append(out, sessions.Source{Harness: h, Path: f})
		}
	}
	return out, nil
}

func transcriptFiles(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, clienv.UsageError("%v", err)
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, filepath.Join(p, e.Name()))
		}
	}
	return out, nil
}

// harnessOf is --from, else the only harness lineage reads.
func harnessOf(path string, harnesses []sessions.Harness) (sessions.Harness, error) {
	if len(harnesses) == 1 {
		return harnesses[0], nil
	}
	if h, ok := sessions.Sniff(path); ok {
		return h, nil
	}
	return "", clienv.UsageError("%s: not a transcript lineage recognises: give --from (claude, codex or gemini)", path)
}

// importErr makes a transcript lineage cannot read a finding (exit 3).
func importErr(err error) error {
	var le *sessions.LineError
	var ue *sessions.UnclassifiedError
	if errors.As(err, &le) || errors.As(err, &ue) {
		return clienv.FindingError(err)
	}
	return clienv.TractErr(err)
}

func writeReport(w io.Writer, rep sessions.Report) {
	for _, s := range rep.Sessions {
		writeSession(w, s)
	}
	fmt.Fprintf(w, "imported %s: %s added, %d already stored, %d kept verbatim, %s masked\n",
		plural(len(rep.Sessions), "session file"), plural(rep.Added, "commit"), rep.Existing, rep.Unmapped, plural(rep.Masked, "secret"))
}

// writeSession is one transcript's line of an import's report.
func writeSession(w io.Writer, s sessions.SessionReport) {
	fmt.Fprintf(w, "%s: %s (%d added, %d already stored)", s.Tract, plural(s.Records, "record"), s.Added, s.Existing)
	if s.Skipped > 0 {
		fmt.Fprintf(w, ", %s skipped", plural(s.Skipped, "line"))
	}
	if s.Spawn != nil {
		fmt.Fprintf(w, ", %s of %s", s.Spawn.Kind, sessions.TractName(s.Spawn.Harness, s.Spawn.Session))
	}
	fmt.Fprintln(w)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
