package servecmd

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/httpguard"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
	"github.com/agentlineage/lineage/webui"
)

// defaultServeAddr is where `lineage serve` listens by default: loopback,
// next to the MCP server's 7411.
const defaultServeAddr = "127.0.0.1:7410"

const Short = "A read-only web page of a tract store, its compiles and the instructions here"

type serveFlags struct {
	store, addr, tokenEnv string
	open, sessions        bool
}

func NewCmd(env *clienv.Env) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve [--addr ADDR] [--store URL] [--sessions] [--open]",
		Short: Short,
		Long: `Serve a local, read-only web page of a tract store: every tract with its head,
branches, tags, spawn parent and budget pressure; each tract's commit graph
(a window at a time, spawns and merge-from edges across tracts, summaries with
the range they stand in for, skipped and edited commits marked); a commit with
its content, annotations and blame; the compiled request under a budget and
format with what was dropped and why; a diff of two refs; search; and the
AGENTS.md chain and an agent's profile for a directory below this one.

--sessions serves the harness sessions store instead (the one lineage
sessions uses: --store, LINEAGE_SESSIONS_STORE, LINEAGE_STORE, else the
user's own): its first page lists the sessions, newest first, a page at a
time, with harness, project, start, title and tokens; each session's graph
shows its subagents and forks as children, its compactions as summaries and
its rewinds as branches. /sessions lists the sessions of any store.

The store is opened read-only: nothing is written. The server listens on
` + defaultServeAddr + ` unless --addr says otherwise; an address other
machines can reach needs --token-env VAR, exactly as lineage mcp --http: every
request must carry "Authorization: Bearer <value of VAR>". A request whose Host
header names a host the server is not bound to (a loopback name, the --addr
host, the address it arrived on) gets 421, so a page whose name is rebound to
this machine reads nothing; requests from a web page of another origin get
403. --open starts $BROWSER (else the system's
opener) on the page.`,
		Example: `  lineage serve --open
  lineage serve --sessions
  lineage serve --store sqlite:.lineage/lineage.db --addr 127.0.0.1:8080
  LINEAGE_SERVE_TOKEN=$(openssl rand -hex 16) lineage serve --addr 0.0.0.0:7410 --token-env LINEAGE_SERVE_TOKEN`,
		Args: clienv.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env.NoteServing()
			return runServe(cmd, env, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.store, "store", "", "tract store (sqlite:PATH, PATH or postgres://…; default $LINEAGE_STORE, else the nearest .lineage/lineage.db)")
	fl.StringVar(&f.addr, "addr", defaultServeAddr, "listen on `ADDR` (host:port; port 0 picks a free one)")
	fl.StringVar(&f.tokenEnv, "token-env", "", "require the bearer token held in environment variable `VAR`")
	fl.BoolVar(&f.sessions, "sessions", false, "serve the harness sessions store (lineage sessions import, hook install --record)")
	fl.BoolVar(&f.open, "open", false, "open the page in a browser ($BROWSER, else the system's opener)")
	return cmd
}

func runServe(cmd *cobra.Command, env *clienv.Env, f *serveFlags) error {
	if f.addr == "" {
		return clienv.UsageError("--addr must not be empty")
	}
	repo, where, closeStore, err := openStore(cmd, env, f)
	if err != nil {
		return err
	}
	defer closeStore()
	fromEnv, warnings := env.Host().Instructions()
	clienv.InstructionsWarn(env, warnings)
	srv, err := webui.New(webui.Options{
		Repo:     repo,
		Store:    where,
		Sessions: f.sessions,
		Hosts:    httpguard.AddrHosts(f.addr),
		Instructions: instructions.Options{Config: instructions.BuildConfig(env.Dir, fromEnv), Cwd: env.Dir,
			Home: env.Host().Home, Tokens: instructions.DefaultTokenCounter()},
		Agents: agents.Options{},
	})
	if err != nil {
		return err
	}
	ln, token, err := clienv.ListenGuarded(env, "--addr", f.tokenEnv, f.addr)
	if err != nil {
		return err
	}
	page := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(env.Stderr, "lineage: serving %s (read-only; Ctrl-C stops)\n", page)
	if f.open {
		if err := openBrowser(env, page); err != nil {
			fmt.Fprintf(env.Stderr, "lineage: --open: %v (open %s yourself)\n", err, page)
		}
	}
	err = srv.Serve(cmd.Context(), ln, token)
	if err == nil {
		fmt.Fprintln(env.Stderr, "lineage: stopped serving")
	}
	return err
}

// openStore opens the store to serve read-only: the sessions store with
// --sessions, else the tract store as every tract command finds it. where
// names it on the pages (a URL with its password redacted).
func openStore(cmd *cobra.Command, env *clienv.Env, f *serveFlags) (*tract.Repo, string, func(), error) {
	if f.sessions {
		st, err := clienv.OpenSessions(cmd.Context(), env, f.store, false)
		if err != nil {
			return nil, "", nil, clienv.TractErr(err)
		}
		if st.Repo == nil {
			return nil, "", nil, clienv.UsageError("no sessions store yet: lineage sessions import (or hook install --record) makes it")
		}
		where := env.Host().SessionsStoreSetting(f.store)
		if where == "" {
			where, _ = clienv.DefaultSessionsStore(env)
		}
		return st.Repo, stores.Redact(where), st.Close, nil
	}
	url, err := env.Host().StoreURL(f.store, env.Dir)
	if err != nil {
		return nil, "", nil, err
	}
	repo, where, err := clienv.OpenRepo(cmd.Context(), env, env.Dir, url, stores.Options{ReadOnly: true})
	if err != nil {
		return nil, "", nil, clienv.TractErr(err)
	}
	if where == url {
		where = stores.Redact(url)
	}
	return repo, where, func() { repo.Store().Close() }, nil
}

// openBrowser starts $BROWSER (a command line; the page is its last
// argument) or the system's opener on page, without waiting for it.
func openBrowser(env *clienv.Env, page string) error {
	var argv []string
	if b := strings.TrimSpace(env.Getenv("BROWSER")); b != "" {
		argv = append(strings.Fields(b), page)
	} else {
		switch runtime.GOOS {
		case "darwin":
			argv = []string{"open", page}
		case "windows":
			argv = []string{"rundll32", "url.dll,FileProtocolHandler", page}
		default:
			argv = []string{"xdg-open", page}
		}
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Dir = env.Dir
	if err := c.Start(); err != nil {
		return err
	}
	go c.Wait()
	return nil
}
