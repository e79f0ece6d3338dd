package mcpserver

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

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
	instructions.Initial
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
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:  "instructions_initial",
		Title: "Load the initial AGENTS.md chain",
		Description: "Load the AGENTS.md files from the project root down to the working directory " +
			"(as `lineage instructions initial --json`) and start this session's instruction session: " +
			"later instructions_resolve calls report only what this load did not give you.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.toolInitial)
	mcp.AddTool(s.srv, &mcp.Tool{
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
	base := s.workDir(ctx, req.Session)
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
	out := ResolveOutput{Targets: []instructions.Resolution{}}
	// Resolve target by target and stop while the result is still well
	// under the cap: one more target adds at most maxFilesPerResolve files.
	limit := s.opts.MaxResultTokens * 4 / 5
	err := s.withInstructionSession(ctx, req.Session, func(sess *instructions.Session) {
		for i, p := range in.Paths {
			if i > 0 && resultTokens(s.opts.Tokens, out) > limit {
				out.Remaining = append([]string(nil), in.Paths[i:]...)
				return
			}
			out.Targets = append(out.Targets, sess.Resolve(p))
			var files []instructions.File
			for _, r := range out.Targets {
				files = append(files, r.Files...)
			}
			out.Reminder = instructions.ResolveReminder(files)
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
func (s *Server) withInstructionSession(ctx context.Context, ss *mcp.ServerSession, fn func(*instructions.Session)) error {
	if s.opts.Stateless {
		if err := ensureDir(s.opts.StateDir); err != nil {
			return err
		}
		return instructions.UpdateState(ctx, s.statePath(), func(st *instructions.State) (instructions.State, error) {
			var sess *instructions.Session
			if st == nil {
				sess, _ = instructions.Start(s.instructionOptions(s.opts.Cwd))
			} else {
				sess = instructions.Restore(*st, s.instructionOptions(s.opts.Cwd))
			}
			fn(sess)
			return sess.State(), nil
		})
	}
	s.mu.Lock()
	sess, ok := s.sessions[ss]
	s.mu.Unlock()
	if !ok {
		sess, _ = instructions.Start(s.instructionOptions(s.workDir(ctx, ss)))
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
// client's roots that lies inside it (when the client has roots).
func (s *Server) workDir(ctx context.Context, ss *mcp.ServerSession) string {
	for _, r := range s.clientRoots(ctx, ss) {
		if fsx.Contains(s.opts.Cwd, r) {
			return r
		}
	}
	return s.opts.Cwd
}

// clientRoots asks the client for its roots once per session (again after
// it says they changed). A client that does not answer quickly has none.
func (s *Server) clientRoots(ctx context.Context, ss *mcp.ServerSession) []string {
	if ss == nil || s.opts.Stateless {
		return nil
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.RootsV2 == nil {
		return nil
	}
	s.mu.Lock()
	roots, ok := s.roots[ss]
	s.mu.Unlock()
	if ok {
		return roots
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	res, err := ss.ListRoots(ctx, nil)
	roots = []string{}
	if err == nil {
		for _, r := range res.Roots {
			if u, err := url.Parse(r.URI); err == nil && u.Scheme == "file" && filepath.IsAbs(u.Path) {
				roots = append(roots, filepath.Clean(u.Path))
			}
		}
	} else {
		s.opts.Logger.Warn("list roots", "error", err)
	}
	s.mu.Lock()
	s.roots[ss] = roots
	s.mu.Unlock()
	return roots
}

func (s *Server) rootsChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	s.mu.Lock()
	delete(s.roots, req.Session)
	s.mu.Unlock()
}
