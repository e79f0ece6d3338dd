package contextcmd

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/internal/tokens"
	"github.com/agentlineage/lineage/tract"
	"github.com/spf13/cobra"
)

const Short = "One model request: AGENTS.md chain, agent profile and tract history under one budget"

// contextFlags are the flags of lineage context: its own and those of
// the instruction chain, the agent chain and the tract store it reads.
type contextFlags struct {
	inf     clienv.InstructionsFlags
	af      clienv.AgentsFlags
	tf      clienv.TractFlags
	o       compose.Options
	format  string
	asJSON  clienv.JSONFlag
	explain bool
	noSkill bool
	pf      clienv.PruneFlags
}

func NewCmd(env *clienv.Env) *cobra.Command {
	c := &contextFlags{}
	cmd := &cobra.Command{
		Use: "context [TARGET] [--slug S] [--tract T] [--budget N] [--format F] [--json] [--explain]",
		Example: `  lineage context src/api/handler.go --slug coder --tract main --budget 8000
  lineage context src/api/handler.go --tract main --format anthropic-request --model claude-sonnet-4-5 --max-tokens 1024
  lineage context src/api --slug coder --explain          # where every block came from, what was left out`,
		Short: Short,
		Long: `Compose the whole context of one model request. The system part is pinned and
comes first: the initial AGENTS.md chain of TARGET's directory (default: the
working directory) under the instruction caps, the catalog of the Agent Skills
that apply there (as 'lineage skills list'; --no-skills leaves it out), the
merged profile of the agent
--slug names (role, purpose, responsibilities, guardrails, directives), and the
pinned system messages of the --tract. The tract's other messages follow,
compiled under what --budget leaves. A budget the pinned part alone exceeds
fails (exit 3) naming its three largest contributors.

--json prints the request with the provenance of every block and what was
left out; --explain prints the provenance as a table.

Instruction flags are those of 'lineage instructions', the store is found as
for 'lineage tract' (--store, LINEAGE_STORE, the nearest .lineage/lineage.db).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return clienv.UsageError("%s takes at most 1 argument (TARGET), got %d", cmd.CommandPath(), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.run(cmd, env, args)
		},
	}
	c.add(cmd)
	return cmd
}

// add registers the flags on cmd.
func (c *contextFlags) add(cmd *cobra.Command) {
	o, inf, af := &c.o, &c.inf, &c.af
	fl := cmd.Flags()
	fl.StringVar(&o.Slug, "slug", "", "agent slug whose merged profile joins the system part")
	fl.StringVar(&o.Tract, "tract", "", "tract whose history fills the messages (default: none)")
	fl.StringVar(&c.tf.Store, "store", "", "store URL or path (default: LINEAGE_STORE, then the nearest .lineage/lineage.db)")
	fl.StringVar(&o.At, "at", "", "compile the tract as of this ref")
	clienv.BudgetFlag(cmd, &o.Budget, "most tokens the whole request may use (the pinned part is never cut)")
	fl.StringVar(&c.format, "format", string(compose.FormatOpenAI), "text, openai (messages), anthropic (system, messages, tools), openai-request or anthropic-request (request bodies)")
	fl.StringVar(&o.Encoding, "encoding", "", "token encoding: o200k_base (default) or cl100k_base")
	fl.StringVar(&o.Model, "model", "", "model name the request formats carry (required by openai-request and anthropic-request)")
	fl.IntVar(&o.MaxTokens, "max-tokens", 0, "reply token limit the request formats carry (max_tokens, required by anthropic-request; max_completion_tokens)")
	fl.BoolVar(&c.noSkill, "no-skills", false, "leave the Agent Skills catalog out of the system part")
	fl.BoolVar(&c.explain, "explain", false, "print where every block came from and what was left out, as a table")
	c.asJSON.Add(cmd, "print the request with the provenance of every block and what was left out")
	c.pf.Add(cmd)
	// The instruction chain's flags, as 'lineage instructions' takes them.
	fl.StringVar(&inf.Config, "config", "", "instructions: JSON configuration `file`")
	fl.StringVar(&inf.Root, "root", "", "instructions: project root override (markers are not consulted)")
	fl.StringVar(&inf.Markers, "markers", "", "instructions: comma-separated root `markers` (default .codelia,.git,.jj)")
	fl.IntVar(&inf.MaxFiles, "max-files", 0, "instructions: most files in the initial chain (default 16)")
	fl.IntVar(&inf.MaxBytes, "max-bytes", 0, "instructions: most content bytes in the initial chain (default 262144)")
	fl.StringVar(&inf.FileNames, "file-names", "", "instructions: comma-separated `names` tried in each directory (default AGENTS.md)")
	// The agent chain's flags, as 'lineage agents' takes them.
	fl.StringArrayVar(&af.Roots, "agents-root", nil, "agents: agents root searched in every domain root after .clia/agents (repeatable)")
	fl.BoolVar(&af.AllowOutside, "allow-outside-inherits", false, "agents: follow inherits that leave the workspace")
}

// run composes the request and prints it.
func (c *contextFlags) run(cmd *cobra.Command, env *clienv.Env, args []string) error {
	o := c.o
	o.Format = compose.Format(c.format)
	if err := compose.CheckFormat(o.Format); err != nil {
		return clienv.UsageError("unknown --format %q (want text, openai, anthropic, openai-request or anthropic-request)", c.format)
	}
	if c.explain && c.asJSON.Set {
		return clienv.UsageError("give --json or --explain, not both")
	}
	// A body the API rejects is no request: say what it needs instead.
	switch {
	case o.Format == compose.FormatOpenAIRequest && o.Model == "":
		return clienv.UsageError("--format openai-request needs --model M: the Chat Completions API refuses a body without a model")
	case o.Format == compose.FormatAnthropicRequest && (o.Model == "" || o.MaxTokens <= 0):
		return clienv.UsageError("--format anthropic-request needs --model M and --max-tokens N: the Messages API refuses a body without them")
	}
	if err := c.pf.Check(); err != nil {
		return err
	}
	if (c.pf.Policy != "" || c.pf.DropFailed) && o.Tract == "" {
		return clienv.UsageError("--prune and --drop-failed-turns prune a tract's history: give --tract")
	}
	if o.Slug != "" {
		if err := clienv.RequireSlug(o.Slug); err != nil {
			return err
		}
	}
	iopts, err := c.inf.Options(cmd, env)
	if err != nil {
		return err
	}
	o.Instructions = iopts
	if !c.noSkill {
		o.Skills = clienv.HookSkills(env, iopts.Cwd, iopts.Home, iopts.Config.Root)
	}
	if len(args) == 1 {
		o.Target = args[0]
	}
	o.Agents = c.af.Options(env)
	o.Agents.Path = ""
	if o.Tract != "" {
		c.tf.Tract = o.Tract
		s, err := c.tf.ReadSession(cmd, env)
		if err != nil {
			return err
		}
		defer s.Close()
		// One compile per process: a cached view would only hold
		// the whole history while the request is printed.
		o.Repo, o.Cold = s.Repo, true
		if o.Prune, err = c.pf.Resolve(cmd.Context(), s.Repo, s.Tract); err != nil {
			return err
		}
	}
	// Token counts of unchanged files are kept between runs, so
	// that a run does not load the tokenizer only to count them
	// again; a state directory that cannot be written only means
	// counting again.
	if p := env.Host().StatePath("token-counts.json"); p != "" {
		o.Counts = tokens.OpenCountFile(p)
	}
	res, err := compose.Compile(cmd.Context(), o)
	if o.Counts != nil {
		_ = o.Counts.Save(cmd.Context())
	}
	if err != nil {
		return clienv.ComposeErr(err)
	}
	return c.print(env, res)
}

// print writes the composed request as --json, --explain or --format say.
func (c *contextFlags) print(env *clienv.Env, res compose.Result) error {
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "lineage: warning: %s\n", fsx.LineSafe(w))
	}
	switch {
	case c.asJSON.Set:
		return clienv.WriteJSON(env.Stdout, res)
	case c.explain:
		return writeContextExplain(env.Stdout, res)
	}
	clienv.PrunedNote(env, res.Pruned)
	if len(res.Dropped)+len(res.DroppedMessages) > 0 {
		writeDroppedNote(env, res)
	}
	return clienv.WriteRequest(env.Stdout, res.Request)
}

func writeDroppedNote(env *clienv.Env, res compose.Result) {
	budget := "no budget"
	if res.Budget != nil {
		budget = fmt.Sprintf("budget %d", *res.Budget)
	}
	var parts []string
	if n := len(res.DroppedMessages); n > 0 {
		tokens := 0
		for _, d := range res.DroppedMessages {
			tokens += d.Tokens
		}
		parts = append(parts, fmt.Sprintf("dropped %d message(s) (%d tokens)", n, tokens))
	}
	files, skillsOut := 0, 0
	for _, d := range res.Dropped {
		if d.Source == compose.SourceSkills {
			skillsOut++
		} else {
			files++
		}
	}
	if files > 0 {
		parts = append(parts, fmt.Sprintf("left out %d AGENTS.md file(s)", files))
	}
	if skillsOut > 0 {
		parts = append(parts, fmt.Sprintf("left out %d skill(s) (the catalog's size bound)", skillsOut))
	}
	fmt.Fprintf(env.Stderr, "%s: %s; see --explain\n", budget, strings.Join(parts, ", "))
}

// writeContextExplain prints the provenance table: one row per block, then
// its files or fields, then what was left out.
func writeContextExplain(w io.Writer, res compose.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	budget := "none"
	if res.Budget != nil {
		budget = fmt.Sprint(*res.Budget)
	}
	fmt.Fprintf(tw, "dir: %s\nencoding: %s\nbudget: %s\ntokens: %d (system %d, overhead %d)\n\n",
		fsx.LineSafe(res.Dir), res.Encoding, budget, res.Tokens, res.SystemTokens, res.Overhead)
	fmt.Fprintln(tw, "#\tpart\tsource\ttokens\tfrom")
	for _, b := range res.Blocks {
		switch b.Source {
		case compose.SourceInstructions:
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d file(s), %d tokens of frame\n", b.Index, b.Part, b.Source, b.Tokens, len(b.Files), b.Overhead)
			for _, f := range b.Files {
				fmt.Fprintf(tw, "\t\t  file\t%d\t%s (mtime %d ms, %d bytes)\n", f.Tokens, fsx.LineSafe(f.Path), f.MtimeMs, f.SizeBytes)
			}
		case compose.SourceSkills:
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d skill(s), %d tokens of frame\n", b.Index, b.Part, b.Source, b.Tokens, len(b.Skills), b.Overhead)
			for _, sk := range b.Skills {
				fmt.Fprintf(tw, "\t\t  skill\t%d\t%s %s (%s %s)\n", sk.Tokens, fsx.LineSafe(sk.Name), fsx.LineSafe(sk.Path), sk.Scope, sk.Kind)
			}
		case compose.SourceProfile:
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\tagent %s, %d field(s), %d tokens of frame\n", b.Index, b.Part, b.Source, b.Tokens, fsx.LineSafe(res.Slug), len(b.Fields), b.Overhead)
			for _, f := range b.Fields {
				fmt.Fprintf(tw, "\t\t  field\t%d\t%s\n", f.Tokens, fsx.LineSafe(f.Field))
				for _, v := range f.Values {
					inh := ""
					if v.Inherited {
						inh = ", inherited"
					}
					fmt.Fprintf(tw, "\t\t\t\t  %s <- %s (layer %d%s)\n", fsx.LineSafe(v.Pointer), fsx.LineSafe(v.File), v.Layer, inh)
				}
			}
		default:
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s %s %s %s, spawn path %s\n", b.Index, b.Part, b.Source, b.Tokens, b.Commit.Short(),
				fsx.LineSafe(b.Tract), b.Type, b.Priority, fsx.LineSafe(strings.Join(b.SpawnPath, " > ")))
		}
	}
	fmt.Fprintln(tw, "\nleft out:")
	if len(res.Dropped)+len(res.DroppedMessages)+len(res.Pruned) == 0 {
		fmt.Fprintln(tw, "  (none)")
	}
	for _, d := range res.Dropped {
		detail := ""
		if d.Detail != "" {
			detail = " (" + fsx.LineSafe(d.Detail) + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s%s\n", d.Reason, d.Source, fsx.LineSafe(d.Path), detail)
	}
	for _, d := range res.DroppedMessages {
		fmt.Fprintf(tw, "  budget\ttract\t%s %s %s %s, %d tokens\n", d.Commit.Short(), fsx.LineSafe(d.Tract), d.Type, d.Priority, d.Tokens)
	}
	writePruned(tw, res.Pruned)
	return tw.Flush()
}

// writePruned lists what the prune policy left out, each with its rule,
// and the tokens that saved.
func writePruned(w io.Writer, pruned []tract.Pruned) {
	saved := 0
	for _, p := range pruned {
		fmt.Fprintf(w, "  prune\t%s\t%s %s %s %s, %d tokens\n", p.Rule, p.Commit.Short(), fsx.LineSafe(p.Tract), p.Type, p.Priority, p.Tokens)
		saved += p.Tokens
	}
	if len(pruned) > 0 {
		fmt.Fprintf(w, "\npruned: %d message(s), %d tokens saved\n", len(pruned), saved)
	}
}
