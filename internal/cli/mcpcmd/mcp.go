package mcpcmd

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/internal/httpguard"
	"github.com/agentlineage/lineage/mcpserver"
	"github.com/agentlineage/lineage/memory"
)

type mcpFlags struct {
	http, tokenEnv, cwd, store, tract string
	allowRoots, rootsWithin           []string
	stateless, sessionsAll, shareHook bool
	poll                              time.Duration
	maxTokens                         int
	// in are the instruction settings, as the instructions commands take
	// them (--cwd is the server's own).
	in clienv.InstructionsFlags
}

const Short = "Serve lineage to agents over the Model Context Protocol"

func NewCmd(env *clienv.Env) *cobra.Command {
	f := &mcpFlags{}
	cmd := &cobra.Command{
		Use:   "mcp [--http [ADDR]]",
		Short: Short,
		Long: `Serve lineage's instructions, agents and tract commands as MCP tools,
resources and prompts.

By default the server speaks JSON-RPC on stdin/stdout (logs go to stderr) and
answers every request it has read before it exits at the end of input. With
--http it serves the streamable HTTP transport on one endpoint, /mcp, bound to
127.0.0.1:7411 unless ADDR says otherwise. Requests with an Origin header that
is not a loopback origin get 403; with --token-env VAR, requests must carry
"Authorization: Bearer <value of VAR>" or get 401.

The instruction settings are the instructions commands' own: --config FILE,
CODELIA_AGENTS_* and the flags (--exclude, --global, --file-names, --no-rules,
--budget-tokens, …), so instructions_initial, instructions_resolve and the
lineage://instructions/initial resource load what 'lineage instructions'
loads with the same settings.

The instruction session (what instructions_resolve has already reported) lives
in the server, one per MCP session. With --stateless there is one shared
session, saved in the store's directory, and HTTP requests need no MCP session
(for running behind a load balancer).`,
		Example: `  lineage mcp install claude           # the "lineage" server in ~/.claude.json, by this binary's absolute path
  lineage mcp install codex --dry-run
  lineage mcp --http
  LINEAGE_MCP_TOKEN=$(openssl rand -hex 16) lineage mcp --http 127.0.0.1:8080 --token-env LINEAGE_MCP_TOKEN`,
		Args: clienv.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env.NoteServing()
			return runMCP(cmd, env, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.http, "http", "", "serve streamable HTTP on `ADDR` (default "+mcpserver.DefaultHTTPAddr+") instead of stdio")
	fl.Lookup("http").NoOptDefVal = mcpserver.DefaultHTTPAddr
	fl.StringVar(&f.tokenEnv, "token-env", "", "require the bearer token held in environment variable `VAR` (HTTP)")
	fl.BoolVar(&f.stateless, "stateless", false, "one shared instruction session saved in the store directory; no HTTP sessions")
	fl.StringVar(&f.cwd, "cwd", "", "working directory (default: the process directory)")
	fl.StringArrayVar(&f.rootsWithin, "roots-within", nil, "bound the client's roots: each is intersected with `DIR` (repeatable; a client declaring / gets DIR)")
	fl.StringArrayVar(&f.allowRoots, "allow-root", nil, "also allow tools to read and write in `DIR` (repeatable; default: only the client's roots, else --cwd)")
	fl.StringVar(&f.store, "store", "", "tract store (sqlite:PATH, PATH or postgres://…; default $LINEAGE_STORE, else the nearest .lineage/lineage.db)")
	fl.StringVar(&f.tract, "tract", "", "default tract (default $LINEAGE_TRACT, else main)")
	fl.BoolVar(&f.shareHook, "share-hook-state", true, "share the live session of lineage's hook when the client is Claude Code, Codex CLI or Gemini CLI (false: every MCP session keeps its own)")
	fl.BoolVar(&f.sessionsAll, "sessions-all", false, "let the sessions tools see every project's imported sessions (default: only those inside the allowed roots)")
	fl.DurationVar(&f.poll, "poll", 2*time.Second, "how often loaded AGENTS.md files are checked for changes")
	fl.IntVar(&f.maxTokens, "max-result-tokens", mcpserver.DefaultMaxResultTokens, "most tokens in one tool result (longer results are paged)")
	f.in.AddSettingsFlags(fl)
	cmd.AddCommand(newMCPInstallCmd(env, true), newMCPInstallCmd(env, false))
	return cmd
}

func runMCP(cmd *cobra.Command, env *clienv.Env, f *mcpFlags, args []string) error {
	addr := f.http
	if len(args) == 1 {
		// "--http ADDR" with a space: pflag reads --http alone (its default)
		// and leaves ADDR as an argument.
		if !cmd.Flags().Changed("http") || f.http != mcpserver.DefaultHTTPAddr {
			return clienv.UsageError("unexpected argument %q (did you mean --http %s?)", args[0], args[0])
		}
		addr = args[0]
	}
	if f.poll <= 0 {
		return clienv.UsageError("--poll must be a positive duration, got %s", f.poll)
	}
	if f.maxTokens <= 0 {
		return clienv.UsageError("--max-result-tokens must be a whole number > 0, got %d", f.maxTokens)
	}
	if f.tokenEnv != "" && addr == "" {
		return clienv.UsageError("--token-env needs --http")
	}
	opts, err := mcpOptions(cmd, env, f)
	if err != nil {
		return err
	}
	store := newMCPTractStore(env, f, opts.Cwd)
	defer store.Close()
	opts.OpenTract = store.opener()
	opts.Tract = env.Host().TractName(f.tract)
	opts.OpenSessions = sessionsOpener(env)
	opts.OpenSessionsWrite, opts.HandoffDir = sessionsWriter(env), env.Host().StatePath("handoffs")
	opts.SessionsAll = f.sessionsAll
	opts.MemoryUser = memory.UserOf(env.Host().Var, env.Host().Home)
	srv, err := mcpserver.New(opts)
	if err != nil {
		return err
	}
	if addr == "" {
		if env.StdinTerminal {
			fmt.Fprintln(env.Stderr, "lineage: serving MCP on stdin and stdout (end with Ctrl-D; clients start this themselves)")
		}
		return srv.ServeStdio(cmd.Context(), env.Stdin, env.Stdout)
	}
	return serveMCPHTTP(cmd, env, f, srv, addr)
}

func serveMCPHTTP(cmd *cobra.Command, env *clienv.Env, f *mcpFlags, srv *mcpserver.Server, addr string) error {
	ln, token, err := clienv.ListenGuarded(env, "--http", f.tokenEnv, addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "lineage: serving MCP on http://%s%s\n", ln.Addr(), mcpserver.HTTPPath)
	return srv.ServeHTTP(cmd.Context(), ln, mcpserver.HTTPOptions{Token: token, Hosts: httpguard.AddrHosts(addr)})
}

// dirFlags are the values of a repeatable directory flag, absolute; each
// must be an existing directory.
func dirFlags(env *clienv.Env, flag string, values []string) ([]string, error) {
	dirs := make([]string, len(values))
	for i, r := range values {
		if r == "" {
			return nil, clienv.UsageError("%s needs a directory", flag)
		}
		dirs[i] = fsx.Abs(env.Dir, r)
		if fi, err := os.Stat(dirs[i]); err != nil || !fi.IsDir() {
			return nil, clienv.UsageError("%s %s: not a directory", flag, dirs[i])
		}
	}
	return dirs, nil
}

// mcpOptions builds the server options from flags and environment.
func mcpOptions(cmd *cobra.Command, env *clienv.Env, f *mcpFlags) (mcpserver.Options, error) {
	cwd := env.Dir
	if f.cwd != "" {
		var err error
		if cwd, err = clienv.ExistingDir(env, "cwd", f.cwd, true); err != nil {
			return mcpserver.Options{}, err
		}
	}
	cfg, err := f.in.BuildConfig(cmd, env, cwd)
	if err != nil {
		return mcpserver.Options{}, err
	}
	// LINEAGE_NOW fixes the clock of journal entries and commits, as for
	// the agents and tract commands.
	now, err := env.Clock()
	if err != nil {
		return mcpserver.Options{}, err
	}
	allow, err := dirFlags(env, "--allow-root", f.allowRoots)
	if err != nil {
		return mcpserver.Options{}, err
	}
	within, err := dirFlags(env, "--roots-within", f.rootsWithin)
	if err != nil {
		return mcpserver.Options{}, err
	}
	return mcpserver.Options{
		AllowRoots:      allow,
		RootsWithin:     within,
		Cwd:             cwd,
		Home:            env.Host().Home,
		Instructions:    &cfg,
		StateDir:        mcpStateDir(env, f, cwd),
		Stateless:       f.stateless,
		HookSessions:    hookSessionsDir(env, f.shareHook),
		MaxResultTokens: f.maxTokens,
		PollInterval:    f.poll,
		Now:             now,
		Logger:          slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Version:         env.Version,
		Skills:          skillsServerOptions(env, cwd),
	}, nil
}

// hookSessionsDir is where lineage's hooks keep their session states ("" when
// there is no state directory, or sharing is off).
func hookSessionsDir(env *clienv.Env, share bool) string {
	if !share {
		return ""
	}
	return env.Host().StatePath("sessions")
}

// skillsServerOptions are the MCP server's skills settings: the same
// environment as the skills commands.
func skillsServerOptions(env *clienv.Env, cwd string) mcpserver.SkillsOptions {
	s := clienv.SkillsEnv(env, cwd)
	return mcpserver.SkillsOptions{User: s.User, Extra: s.Extra, CacheDir: s.CacheDir}
}
