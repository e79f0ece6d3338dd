package mcpserver

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/instructions"
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
	roots, ask := s.clientRoots(req)
	if ask != nil {
		return ask, InitialOutput{}, nil
	}
	base := s.workDir(roots)
	cwd := base
	if in.Cwd != "" {
		cwd = fsx.Abs(base, in.Cwd)
	}
	sess, initial := instructions.Start(s.instructionOptions(cwd))
	if err := s.setInstructionSession(ctx, req.Session, sess); err != nil {
		return nil, InitialOutput{}, err
	}
	out := InitialOutput{Initial: initial}
	if resultTokens(s.opts.Tokens, out) > s.opts.MaxResultTokens {
		out.TextResource = initialURI(cwd, s.opts.Cwd)
		out.Text = ""
	}
	return nil, out, nil
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
	roots, ask := s.clientRoots(req)
	if ask != nil {
		return ask, ResolveOutput{}, nil
	}
	out := ResolveOutput{Targets: []instructions.Resolution{}}
	// Resolve target by target and stop while the result (with the paths
	// left over) is still well under the cap: one more target adds at most
	// maxFilesPerResolve files.
	limit := s.opts.MaxResultTokens * 4 / 5
	err := s.withInstructionSession(ctx, req.Session, s.workDir(roots), func(sess *instructions.Session) {
		var files []instructions.File
		for i, p := range in.Paths {
			r := sess.Resolve(p)
			out.Targets = append(out.Targets, r)
			files = append(files, r.Files...)
			out.Reminder = instructions.ResolveReminder(files)
			if rest := in.Paths[i+1:]; len(rest) > 0 {
				out.Remaining = rest
				if resultTokens(s.opts.Tokens, out) > limit {
					return
				}
				out.Remaining = nil
			}
		}
	})
	if err != nil {
		return nil, ResolveOutput{}, err
	}
	return nil, out, nil
}

// instructionOptions are the session options for a working directory.
func (s *Server) instructionOptions(cwd string) instructions.Options {
	cfg := s.cfg
	if o := cfg.Root.ProjectRootOverride; o != "" && !filepath.IsAbs(o) {
		cfg.Root.ProjectRootOverride = fsx.Abs(s.opts.Cwd, o)
	}
	return instructions.Options{Config: cfg, Cwd: cwd, Home: s.opts.Home}
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
func (s *Server) withInstructionSession(ctx context.Context, ss *mcp.ServerSession, cwd string, fn func(*instructions.Session)) error {
	if s.opts.Stateless {
		if err := ensureDir(s.opts.StateDir); err != nil {
			return err
		}
		return instructions.UpdateSession(ctx, s.statePath(), s.instructionOptions(s.opts.Cwd), func(sess *instructions.Session, _ *instructions.Initial) error {
			fn(sess)
			return nil
		})
	}
	s.mu.Lock()
	sess, ok := s.sessions[ss]
	s.mu.Unlock()
	if !ok {
		sess, _ = instructions.Start(s.instructionOptions(cwd))
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

// workDir is the server's working directory, narrowed to the first of the
// client's roots that lies inside it.
func (s *Server) workDir(roots []string) string {
	for _, r := range roots {
		if fsx.Contains(s.opts.Cwd, r) {
			return r
		}
	}
	return s.opts.Cwd
}

// rootsKey labels the roots request in a multi-round-trip tool call.
const rootsKey = "roots"

// clientRoots returns the client's file roots. A client that has roots and
// has not told them yet in this session is asked: ask is the result to
// return, and the SDK calls the tool again with the answer (on older
// protocol versions the SDK asks the client itself).
func (s *Server) clientRoots(req *mcp.CallToolRequest) (roots []string, ask *mcp.CallToolResult) {
	if s.opts.Stateless {
		// One shared session for everybody: it is rooted at the server's
		// directory, and a stateless server cannot ask a client anything.
		return nil, nil
	}
	if caps := req.ClientCapabilities(); caps == nil || caps.RootsV2 == nil {
		return nil, nil
	}
	if r, ok := req.Params.InputResponses[rootsKey].(*mcp.ListRootsResult); ok {
		roots = fileRoots(r)
		s.mu.Lock()
		s.roots[req.Session] = roots
		s.mu.Unlock()
		return roots, nil
	}
	s.mu.Lock()
	roots, ok := s.roots[req.Session]
	s.mu.Unlock()
	if ok {
		return roots, nil
	}
	return nil, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsKey: &mcp.ListRootsParams{}}}
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
