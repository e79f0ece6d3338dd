package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/confine"
	"github.com/agentlineage/lineage/internal/fsx"
)

// InitialInput are the arguments of instructions_initial.
type InitialInput struct {
	Cwd string `json:"cwd,omitempty" jsonschema:"working directory (absolute, or relative to the server's); default: the server's"`
}

// InitialOutput is instructions initial --json, plus where to read the text
// when it was too long to inline.
type InitialOutput struct {
	instructions.Initial `json:",inline"`
	// TextResource is set when Text was left out to keep the result small:
	// read this resource for the block.
	TextResource string `json:"textResource,omitempty" jsonschema:"set when text was too long to inline: read this resource for it"`
	// Outside are AGENTS.md files of the chain that were not read because
	// they (or where they lead) lie outside the allowed roots.
	Outside []OutsideFile `json:"outside,omitempty" jsonschema:"chain files not read: outside the allowed roots"`
}

// OutsideFile is a file not read because it lies outside the allowed roots.
type OutsideFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// outsideFiles are the chain files the confined loader refused. Each path
// is checked once: a file swapped between two checks must not make the
// second one differ from the first.
func outsideFiles(sc scope, in instructions.Initial) []OutsideFile {
	var out []OutsideFile
	for _, d := range in.Dirs {
		if d.Path == "" || d.Status != instructions.StatusUnreadable {
			continue
		}
		if err := sc.roots.Check(d.Path); err != nil {
			out = append(out, OutsideFile{Path: d.Path, Reason: err.Error()})
		}
	}
	return out
}

// ResolveInput are the arguments of instructions_resolve.
type ResolveInput struct {
	Paths []string `json:"paths" jsonschema:"files or directories about to be read or edited (absolute, or relative to the working directory)"`
}

// ResolveOutput is instructions resolve --json plus the reminder.
type ResolveOutput struct {
	Targets []instructions.Resolution `json:"targets"`
	// Reminder is the agents.resolve.paths system reminder for every file
	// found, "" when there is none.
	Reminder string `json:"reminder" jsonschema:"the agents.resolve.paths system reminder, ready to paste; empty when nothing is new"`
	// Remaining are the paths not resolved in this call to keep the result
	// small; pass them to the next call.
	Remaining []string `json:"remaining,omitempty" jsonschema:"paths left for the next call (the result would have been too long)"`
}

func (s *Server) addInstructionTools() {
	addTool(s, &mcp.Tool{
		Name:  "instructions_initial",
		Title: "Load the initial AGENTS.md chain",
		Description: "Load the AGENTS.md files from the project root down to the working directory " +
			"(as `lineage instructions initial --json`) and start this session's instruction session: " +
			"later instructions_resolve calls report only what this load did not give you.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.toolInitial)
	addTool(s, &mcp.Tool{
		Name:  "instructions_resolve",
		Title: "Resolve AGENTS.md for paths",
		Description: "Report the AGENTS.md files that apply to the given paths and that this session has not " +
			"been given yet (new) or has been given in another version (updated), root to leaf, with the " +
			"reminder text to paste. A second call for the same paths reports nothing new. " +
			"As `lineage instructions resolve --json`.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(false)},
	}, s.toolResolve)
}

func ptr[T any](v T) *T { return &v }

func (s *Server) toolInitial(ctx context.Context, req *mcp.CallToolRequest, in InitialInput) (*mcp.CallToolResult, InitialOutput, error) {
	sc, ask := s.callScope(ctx, req)
	if ask != nil {
		return ask, InitialOutput{}, nil
	}
	cwd, err := sc.path("cwd", in.Cwd)
	if err != nil {
		return nil, InitialOutput{}, err
	}
	sess, initial := instructions.Start(s.instructionOptions(cwd, sc))
	for _, w := range initial.Warnings {
		// What the CLI prints as "lineage: warning: …" (a budget
		// exceeded, an unreadable file) goes to the server's log.
		s.opts.Logger.Warn(w)
	}
	if err := s.setInstructionSession(ctx, req.Session, sess); err != nil {
		return nil, InitialOutput{}, err
	}
	out := InitialOutput{Initial: initial, Outside: outsideFiles(sc, initial)}
	if resultTokens(s.opts.Tokens, out) > s.opts.MaxResultTokens {
		out.TextResource = initialURI(cwd, s.opts.Cwd)
		out.Text = ""
	}
	return textResult(out.Text), out, nil
}

func (s *Server) toolResolve(ctx context.Context, req *mcp.CallToolRequest, in ResolveInput) (*mcp.CallToolResult, ResolveOutput, error) {
	if len(in.Paths) == 0 {
		return nil, ResolveOutput{}, fmt.Errorf("paths: give at least one path")
	}
	for i, p := range in.Paths {
		if p == "" {
			return nil, ResolveOutput{}, fmt.Errorf("paths[%d]: must not be empty", i)
		}
	}
	sc, ask := s.callScope(ctx, req)
	if ask != nil {
		return ask, ResolveOutput{}, nil
	}
	paths := make([]string, len(in.Paths))
	for i, p := range in.Paths {
		abs, err := sc.path(fmt.Sprintf("paths[%d]", i), p)
		if err != nil {
			return nil, ResolveOutput{}, err
		}
		paths[i] = abs
	}
	out := ResolveOutput{Targets: []instructions.Resolution{}}
	// Resolve target by target; a target whose files would take the result
	// (with the paths left over) past the cap is not registered and is left
	// for the next call with the rest. The first one is always taken, so
	// every call makes progress (it holds at most maxFilesPerResolve files).
	err := s.withInstructionSession(ctx, req.Session, sc, func(sess *instructions.Session) {
		var files []instructions.File
		for i, p := range paths {
			next := ResolveOutput{Targets: append(slices.Clip(out.Targets), instructions.Resolution{})}
			_, ok := sess.ResolveIf(p, func(r instructions.Resolution) bool {
				next.Targets[len(next.Targets)-1] = r
				next.Reminder = instructions.ResolveReminderNamed(append(slices.Clip(files), r.Files...), s.cfg.FileNames)
				if rest := in.Paths[i+1:]; len(rest) > 0 {
					next.Remaining = rest
				}
				return i == 0 || resultTokens(s.opts.Tokens, next) <= s.opts.MaxResultTokens
			})
			if !ok {
				out.Remaining = in.Paths[i:]
				return
			}
			files = append(files, next.Targets[len(next.Targets)-1].Files...)
			out.Targets, out.Reminder = next.Targets, next.Reminder
		}
	})
	if err != nil {
		return nil, ResolveOutput{}, err
	}
	return textResult(out.Reminder), out, nil
}

// instructionOptions are the session options for a working directory: the
// loader reads no file whose real path leads outside the scope's roots.
func (s *Server) instructionOptions(cwd string, sc scope) instructions.Options {
	cfg := s.cfg
	if o := cfg.Root.ProjectRootOverride; o != "" && !filepath.IsAbs(o) {
		cfg.Root.ProjectRootOverride = fsx.Abs(s.opts.Cwd, o)
	}
	fsys := confinedFS{FS: instructions.OS, roots: sc.roots, names: cfg.FileNames, config: s.configRoots}
	// The project root as the CLI estimates it from cwd: the chain between it
	// and the roots is readable (only the instruction files).
	if root := instructions.EstimateRoot(instructions.OS, cfg.Root, cwd, s.opts.Home); root.Dir != "" {
		// Mostly an allowed root itself, resolved for this call already.
		if pr, ok := sc.roots.Only(root.Dir); ok {
			fsys.project = pr
		} else if pr, err := confine.New(root.Dir); err == nil {
			fsys.project = pr
		}
	}
	return instructions.Options{Config: cfg, Cwd: cwd, Home: s.opts.Home, FS: fsys}
}

func (s *Server) statePath() string { return filepath.Join(s.opts.StateDir, StateFileName) }

// setInstructionSession makes sess the instruction session of ss (or the
// shared, saved one when stateless).
func (s *Server) setInstructionSession(ctx context.Context, ss *mcp.ServerSession, sess *instructions.Session) error {
	if s.opts.Stateless {
		return instructions.WriteState(ctx, s.statePath(), sess.State())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneLocked()
	s.sessions[ss] = sess
	return nil
}

// withInstructionSession runs fn on the instruction session of ss,
// starting one with the initial load when there is none. When stateless
// the saved session is loaded and saved under its file lock, so servers
// and CLI calls sharing it lose nothing.
func (s *Server) withInstructionSession(ctx context.Context, ss *mcp.ServerSession, sc scope, fn func(*instructions.Session)) error {
	if hook := s.hookState(ss, sc.work); hook != "" && !s.opts.Stateless {
		// The harness's hook keeps this session: resolve against its state,
		// under its lock, so neither tells the model a path twice.
		_, err := instructions.UpdateStateFile(ctx, hook, instructions.StateFileOptions{Mode: 0o600}, func(saved *instructions.State) (instructions.State, error) {
			var sess *instructions.Session
			if saved != nil {
				sess = instructions.Restore(*saved, s.instructionOptions(sc.work, sc))
			} else {
				sess, _ = instructions.Start(s.instructionOptions(sc.work, sc))
			}
			fn(sess)
			return sess.State(), nil
		})
		return err
	}
	if s.opts.Stateless {
		if err := ensureDir(s.opts.StateDir); err != nil {
			return err
		}
		return instructions.UpdateSession(ctx, s.statePath(), s.instructionOptions(s.opts.Cwd, sc), func(sess *instructions.Session, _ *instructions.Initial) error {
			fn(sess)
			return nil
		})
	}
	s.mu.Lock()
	sess, ok := s.sessions[ss]
	s.mu.Unlock()
	if !ok {
		sess, _ = instructions.Start(s.instructionOptions(sc.work, sc))
		s.mu.Lock()
		s.pruneLocked()
		if cur, raced := s.sessions[ss]; raced {
			sess = cur
		} else {
			s.sessions[ss] = sess
		}
		s.mu.Unlock()
	}
	fn(sess)
	return nil
}

// rootsKey labels the roots request in a multi-round-trip tool call.
const rootsKey = "roots"

// RootsTimeout is how long a tool call waits for the client's roots/list
// answer before it falls back to the server's working directory.
const RootsTimeout = 2 * time.Second

// clientRoots returns the client's file roots, asking the client once per
// session. A client without the roots capability, or whose roots/list
// fails or does not answer within [RootsTimeout], gets none: the call then
// runs in the server's directory (said once per session on the log). On
// the 2026-07-28 protocol a server may not send requests while serving
// one, so the roots are asked for with an input request instead: ask is
// the result to return, and the client calls the tool again with the
// answer.
func (s *Server) clientRoots(ctx context.Context, req *mcp.CallToolRequest) (roots []string, ask *mcp.CallToolResult) {
	if s.opts.Stateless {
		// One shared session for everybody: it is rooted at the server's
		// directory, and a stateless server cannot ask a client anything.
		return nil, nil
	}
	if caps := req.ClientCapabilities(); caps == nil || caps.RootsV2 == nil {
		return nil, nil
	}
	s.mu.Lock()
	roots, ok := s.roots[req.Session]
	s.mu.Unlock()
	if ok {
		return roots, nil
	}
	if inputRequests(req.Session) {
		if req.Params.InputResponses == nil {
			return nil, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsKey: &mcp.ListRootsParams{}}}
		}
		if r, ok := req.Params.InputResponses[rootsKey].(*mcp.ListRootsResult); ok {
			return s.keepRoots(req.Session, fileRoots(r)), nil
		}
		return s.rootsFailed(req.Session, errors.New("the client answered without roots")), nil
	}
	ctx, cancel := context.WithTimeout(ctx, RootsTimeout)
	defer cancel()
	r, err := req.Session.ListRoots(ctx, nil)
	if err != nil {
		return s.rootsFailed(req.Session, err), nil
	}
	return s.keepRoots(req.Session, fileRoots(r)), nil
}

// inputRequests reports whether the session's protocol version asks the
// client with input requests rather than server-to-client requests.
func inputRequests(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= "2026-07-28"
}

func (s *Server) keepRoots(ss *mcp.ServerSession, roots []string) []string {
	s.mu.Lock()
	s.roots[ss] = roots
	s.mu.Unlock()
	return roots
}

// rootsFailed records that a session has no usable roots and says so once.
func (s *Server) rootsFailed(ss *mcp.ServerSession, err error) []string {
	s.opts.Logger.Warn("the client's roots are unavailable; using the server's working directory", "cwd", s.opts.Cwd, "error", err)
	return s.keepRoots(ss, []string{})
}

// cachedRoots are the roots a session has told, for handlers that cannot ask.
func (s *Server) cachedRoots(ss *mcp.ServerSession) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.roots[ss]
}

func fileRoots(r *mcp.ListRootsResult) []string {
	roots := []string{}
	for _, root := range r.Roots {
		if u, err := url.Parse(root.URI); err == nil {
			if p, ok := fsx.Host.FromFileURL(u); ok {
				roots = append(roots, p)
			}
		}
	}
	return roots
}

func (s *Server) rootsChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	s.mu.Lock()
	delete(s.roots, req.Session)
	s.mu.Unlock()
}

// hookHarnesses maps an MCP client's name (its initialize clientInfo) to
// the harness whose hook states it shares.
var hookHarnesses = map[string]string{"claude-code": "claude", "codex-mcp-client": "codex", "gemini-cli-mcp-client": "gemini"}

// HookStateLive is how recently a hook session's state must have been
// written for an MCP session of the same harness to share it: the hook
// writes it at the session's start and on every tool event, so the
// session the harness runs now is the newest one of its directory.
const HookStateLive = 24 * time.Hour

// clientHarness is the harness an MCP session's client is ("" when lineage
// does not recognise it).
func clientHarness(ss *mcp.ServerSession) string {
	if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil {
		return hookHarnesses[ip.ClientInfo.Name]
	}
	return ""
}

// hookState is the state file of the hook session this MCP session shares:
// the newest main-agent state of the client's harness whose working
// directory is cwd, written in the last [HookStateLive]; "" when there is
// none. A client lineage does not recognise shares nothing: it keeps its
// own session, and no other harness's session hears of its resolves. A
// found path is remembered for the session.
func (s *Server) hookState(ss *mcp.ServerSession, cwd string) string {
	if s.opts.HookSessions == "" || ss == nil {
		return ""
	}
	s.mu.Lock()
	p, ok := s.hookStates[ss]
	s.mu.Unlock()
	if ok {
		return p
	}
	h := clientHarness(ss)
	if h == "" {
		return ""
	}
	prefix := h + "-"
	entries, err := os.ReadDir(s.opts.HookSessions)
	if err != nil {
		return ""
	}
	var best string
	var bestTime time.Time
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") || strings.Contains(name, "@") || !strings.HasPrefix(name, prefix) {
			continue
		}
		fi, err := e.Info()
		if err != nil || time.Since(fi.ModTime()) > HookStateLive || !fi.ModTime().After(bestTime) {
			continue
		}
		path := filepath.Join(s.opts.HookSessions, name)
		if st, ok, err := instructions.ReadState(path); err == nil && ok && filepath.Clean(st.Cwd) == filepath.Clean(cwd) {
			best, bestTime = path, fi.ModTime()
		}
	}
	if best != "" {
		s.mu.Lock()
		s.pruneLocked()
		s.hookStates[ss] = best
		s.mu.Unlock()
	}
	return best
}
