package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/confine"
	"github.com/agentlineage/lineage/tract"
)

// Options configure a [Server]. Cwd is required; everything else has a
// default.
type Options struct {
	// Cwd is the working directory (absolute): the default for every tool's
	// cwd/path, and the base relative paths are resolved against. A client's
	// roots may narrow it (see [Server]).
	Cwd string
	// Home ends the AGENTS.md root search when so configured.
	Home string
	// Instructions is the AGENTS.md configuration; the zero value means
	// [instructions.DefaultConfig].
	Instructions *instructions.Config
	// StateDir is the directory that holds the shared instruction session
	// when Stateless is set (usually the store's directory).
	StateDir string
	// Stateless: one instruction session for all clients, saved in
	// StateDir, instead of one per MCP session kept in memory.
	Stateless bool
	// HookSessions is the directory of lineage's hook session states
	// (<state dir>/lineage/sessions). An MCP session of a harness lineage
	// recognises (Claude Code, Codex CLI, Gemini CLI, by the client's
	// initialize name) shares the live hook session of the same harness
	// and working directory: instructions_resolve reports only what the
	// hook (or an earlier resolve) did not, and the hook hears of what a
	// resolve reported. Any other client keeps its own session. "" shares
	// nothing.
	HookSessions string
	// MaxResultTokens caps the size of a tool result; 0 means
	// [DefaultMaxResultTokens].
	MaxResultTokens int
	// Tokens counts tokens for the cap; nil means o200k_base.
	Tokens TokenCounter
	// PollInterval is how often loaded AGENTS.md files are checked for
	// changes while a client is subscribed; 0 means 2 seconds.
	PollInterval time.Duration
	// Now is the clock of journal entries; nil means time.Now.
	Now func() time.Time
	// Logger receives diagnostics (stderr in the CLI); nil discards them.
	Logger *slog.Logger
	// Version is reported to clients.
	Version string
	// OpenTract opens the tract store; nil leaves the tract tools,
	// resources and prompt out. The server has the repo write its compile
	// checkpoints in the background (tract.Repo.BackgroundCheckpoints):
	// call the repo's Wait before closing its store.
	OpenTract TractOpener
	// Tract is the tract the tract tools use when a call names none;
	// "" means main.
	Tract string
	// AllowRoots are directories (absolute) every call may read and write
	// besides the client's roots (else Cwd).
	AllowRoots []string
	// Skills configure the skills tools and catalog.
	Skills SkillsOptions
	// RootsWithin, when set, bound what clients may declare: each client
	// root is intersected with these directories (absolute), so a client
	// declaring "/" gets them, not the whole host. A client root outside
	// all of them is dropped.
	RootsWithin []string
	// OpenSessions opens the store of imported harness sessions for the
	// sessions tools; nil leaves them out.
	OpenSessions SessionsOpener
	// SessionsAll lets the sessions tools see every project's sessions,
	// not only those whose working directory is inside the call's allowed
	// roots.
	SessionsAll bool
	// OpenSessionsWrite opens the sessions store for writing, and
	// HandoffDir is the folder of pending handoffs (<state
	// dir>/lineage/handoffs): session_handoff records a handoff there; nil
	// or "" leaves it out.
	OpenSessionsWrite SessionsOpener
	HandoffDir        string
	// MemoryUser names the user whose memories the memory tools keep and
	// search (with the project of the call's working directory and the
	// slug a call names); "" (or no OpenSessionsWrite) leaves them out.
	MemoryUser string
}

// StateFileName is the name of the shared instruction session file in
// Options.StateDir.
const StateFileName = "mcp-instructions-session.json"

// Server is lineage as an MCP server: tools, resources and prompts over the
// library packages.
type Server struct {
	opts Options
	cfg  instructions.Config
	srv  *mcp.Server
	// configRoots are the directories the instruction settings name
	// (global files' folders, imports.allowedRoots), readable by the
	// instruction loader.
	configRoots confine.Roots

	mu sync.Mutex
	// sessions holds the instruction session of each MCP session (stateful
	// mode only).
	sessions map[*mcp.ServerSession]*instructions.Session
	// hookStates: the hook state file each session shares.
	hookStates map[*mcp.ServerSession]string
	// roots caches each MCP session's client roots; nil entry: not asked yet.
	roots map[*mcp.ServerSession][]string
	// subscribed are the instruction resources someone subscribed to, and
	// initialFiles the files of their initial chains.
	subscribed   []string
	initialFiles []instructions.StateFile

	watch  *watcher
	tracts *tractRepo

	skillState skillState
	// lines remembers token counts of the lines of requests context_compile
	// answered.
	lines lineCounts
	// texts remembers the encodings of the messages of the requests
	// context_compile answered.
	texts compose.RequestTexts
	// quoted holds the JSON string forms of context_compile's texts until
	// wireResult writes them.
	quoted quotedTexts
	// sources keeps, per scope, what context_compile read for its system
	// part (compose.Sources); under mu.
	sources map[string]*compose.Sources
	// scratch holds the *compose.Scratch of context_compile's answers: a
	// call takes one, encodes its answer and puts it back.
	scratch sync.Pool
}

// New builds a server with every tool, resource and prompt registered.
func New(opts Options) (*Server, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts:       opts,
		cfg:        instructions.DefaultConfig(),
		sessions:   map[*mcp.ServerSession]*instructions.Session{},
		hookStates: map[*mcp.ServerSession]string{},
		roots:      map[*mcp.ServerSession][]string{},
		sources:    map[string]*compose.Sources{},
		tracts:     &tractRepo{open: opts.OpenTract},
	}
	if opts.Instructions != nil {
		s.cfg = *opts.Instructions
	}
	s.configRoots = configRoots(s.cfg, opts.Home)
	s.watch = newWatcher(opts.PollInterval, s.loadedFiles, s.notifyInitialChanged)
	guide := serverInstructions
	if opts.OpenTract != nil {
		guide += "\n\n" + tractGuide
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "lineage", Title: "lineage", Version: opts.Version}, &mcp.ServerOptions{
		Instructions:            guide,
		Logger:                  opts.Logger,
		SubscribeHandler:        s.subscribe,
		UnsubscribeHandler:      s.unsubscribe,
		RootsListChangedHandler: s.rootsChanged,
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{Subscribe: true},
			Prompts:   &mcp.PromptCapabilities{},
		},
	})
	s.srv.AddReceivingMiddleware(wireResults(&s.quoted), s.clientInstructions(guide))
	s.addInstructionTools()
	s.addInstructionResumeTool()
	s.addInstructionResources()
	s.addAgentsTools()
	s.addSkillsTools()
	s.addContextTools()
	if opts.OpenTract != nil {
		s.addTractTools()
		s.addTractResources()
		s.addTractPrompts()
	}
	if opts.OpenSessions != nil {
		s.addSessionsTools()
	}
	if opts.OpenSessionsWrite != nil && opts.HandoffDir != "" {
		s.addHandoffTool()
	}
	if opts.OpenSessions != nil && opts.OpenSessionsWrite != nil && opts.MemoryUser != "" {
		s.addMemoryTools()
	}
	return s, nil
}

// configRoots are the folders of cfg's global files and its
// imports.allowedRoots ("~/" against home; one without a home is left
// out): the server's own settings name them, so the instruction loader
// reads there as the CLI does.
func configRoots(cfg instructions.Config, home string) confine.Roots {
	var dirs []string
	add := func(p string, dir bool) {
		if p == "~" || strings.HasPrefix(p, "~/") {
			if home == "" {
				return
			}
			p = filepath.Join(home, filepath.FromSlash(strings.TrimPrefix(p[1:], "/")))
		}
		if !filepath.IsAbs(p) {
			return
		}
		if !dir {
			p = filepath.Dir(p)
		}
		dirs = append(dirs, p)
	}
	for _, g := range cfg.GlobalFiles {
		add(g, false)
	}
	for _, a := range cfg.Imports.AllowedRoots {
		add(a, true)
	}
	r, _ := confine.New(dirs...)
	return r
}

// withDefaults checks the paths of o (absolute, then cleaned) and the
// stateless mode's state directory, and fills in the defaults.
func (o Options) withDefaults() (Options, error) {
	if o.Cwd == "" || !filepath.IsAbs(o.Cwd) {
		return o, errors.New("mcp server: working directory must be an absolute path")
	}
	o.Cwd = filepath.Clean(o.Cwd)
	for i, r := range o.AllowRoots {
		if !filepath.IsAbs(r) {
			return o, fmt.Errorf("mcp server: allowed root %q must be an absolute path", r)
		}
		o.AllowRoots[i] = filepath.Clean(r)
	}
	for i, r := range o.RootsWithin {
		if !filepath.IsAbs(r) {
			return o, fmt.Errorf("mcp server: roots-within %q must be an absolute path", r)
		}
		o.RootsWithin[i] = filepath.Clean(r)
	}
	if o.Stateless && o.StateDir == "" {
		return o, errors.New("mcp server: stateless mode needs a state directory")
	}
	if o.MaxResultTokens <= 0 {
		o.MaxResultTokens = DefaultMaxResultTokens
	}
	if o.Tokens == nil {
		o.Tokens = &defaultTokens{}
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 2 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Version == "" {
		o.Version = "devel"
	}
	if o.Tract == "" {
		o.Tract = tract.DefaultTract
	}
	return o, nil
}

// serverInstructions is sent at initialize: how to use the AGENTS.md tools
// without wasting turns (the five prompt rules of the hierarchy-loading
// seed, §8, in our words).
const serverInstructions = `lineage tells you which AGENTS.md instructions apply.
1. If your context already holds "AGENTS.md in this session:" (lineage's hook sent
   it), the AGENTS.md files are in your context: do not call instructions_initial.
   Otherwise call instructions_initial once when the session starts: the AGENTS.md
   files from the project root down to the working directory are then in your
   context. Do not look for AGENTS.md again on every turn.
2. Call instructions_resolve only when you are about to read or edit a path you have
   not worked on yet; it names only the AGENTS.md files you have not been given.
3. When it names files, read them and follow what they say (paste its reminder into
   your context).
4. Do not read the same AGENTS.md twice: what you were given stays valid until
   instructions_resolve reports it updated.
5. When you resume a saved session, call instructions_resume first; if it returns a
   <system-reminder type="session.resume.diff">, act on those differences before
   anything else.`

// tractGuide follows serverInstructions when the server has a tract store:
// how an agent checkpoints, rewinds and compresses its own context.
const tractGuide = `Your own context is a tract (version control for it): tract_commit records each
turn and reports tokens, budget and pressure.
- Checkpoint before a risky step: tract_tag name=NAME (or tract_branch name=NAME).
- Rewind: tract_reset ref=NAME (or HEAD~N) moves back; the abandoned turns stay in
  the store (tract_find finds them, tract_show ref=HASH shows one; tract_log lists
  the current history only). tract_checkout ref=- or tract_switch name=-
  go back to where you were; tract_cherry_pick brings one turn back.
- Compress: when tract_commit says warn (pressure at warn-at, see tract_config), its
  plan names the range: write a summary of those messages yourself (lineage never
  calls a model) within maxSummaryTokens, then tract_compress range=… summary=….
  The originals stay, by reference; tract_annotate the summary skip to undo it.
- Delegate: tract_spawn a child, then tract_merge_from (range, types, roles, tags
  to take only part; dryRun to see the tokens first). tract_export saves a tract.`

// MCP returns the underlying SDK server.
func (s *Server) MCP() *mcp.Server { return s.srv }

// ServeStdio serves one client on in/out until the client closes its end
// (every request read is answered first) or ctx is cancelled.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.watch.run(ctx)
	err := s.srv.Run(ctx, StdioTransport(in, out))
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// pruneLocked forgets what was kept for MCP sessions that are gone.
// Callers hold s.mu.
func (s *Server) pruneLocked() {
	alive := map[*mcp.ServerSession]bool{}
	for ss := range s.srv.Sessions() {
		alive[ss] = true
	}
	for ss := range s.sessions {
		if !alive[ss] {
			delete(s.sessions, ss)
		}
	}
	for ss := range s.roots {
		if !alive[ss] {
			delete(s.roots, ss)
		}
	}
	for ss := range s.hookStates {
		if !alive[ss] {
			delete(s.hookStates, ss)
		}
	}
}

func ensureDir(dir string) error {
	return os.MkdirAll(dir, 0o755)
}
