package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/handoff"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
)

// SessionHandoffInput are the arguments of session_handoff.
type SessionHandoffInput struct {
	Summary string `json:"summary" jsonschema:"your summary of the session up to its tail: what was asked, decided, done and left to do; it leads the new session's context"`
	Session string `json:"session,omitempty" jsonschema:"the session handed off: its id, tract name or a unique prefix (default: this project's newest imported session)"`
	At      string `json:"at,omitempty" jsonschema:"the turn to continue from: a ref of the session's tract (a commit, a tag, HEAD~N; default HEAD)"`
	To      string `json:"to,omitempty" jsonschema:"the harness whose next session start in the project gets the handoff (default: the session's own)"`
	Budget  int    `json:"budget,omitempty" jsonschema:"most tokens the handoff may use (0: none)"`
}

// SessionHandoffOutput is session_handoff's answer: the handoff recorded
// and left pending (the composed context itself is in the pending file and
// the handoff tract, not repeated here).
type SessionHandoffOutput struct {
	Session string     `json:"session"`
	Harness string     `json:"harness"`
	At      tract.Hash `json:"at"`
	To      string     `json:"to"`
	// Tract is the handoff's tract (its compress commit holds the summary).
	Tract   string     `json:"tract"`
	Created bool       `json:"created"`
	Tail    tract.Hash `json:"tail,omitempty"`
	Tokens  int        `json:"tokens"`
	Project string     `json:"project"`
	Expires string     `json:"expires"`
	Command string     `json:"command"`
}

// addHandoffTool registers session_handoff when the server may write the
// sessions store and has a folder for pending handoffs.
func (s *Server) addHandoffTool() {
	addTool(s, &mcp.Tool{
		Name:  "session_handoff",
		Title: "Hand this session off to a fresh one",
		Description: "Write the summary yourself and lineage starts a fresh session from it, as `lineage handoff --to HARNESS --summary TEXT` does: " +
			"the summary is stored in tract (the handoff tract's summary commit, spawned from the imported session at the turn), " +
			"followed by the newest whole turns under the budget, and the handoff is left pending for the harness's next session start in the session's project " +
			"(delivered once by lineage's hook within 24 hours). The session must be imported (`lineage sessions import`) and in this project.",
		Annotations: hints(false, false, true),
		InputSchema: withEnums[SessionHandoffInput](map[string][]string{"to": harnessNames()}),
	}, s.toolSessionHandoff)
}

func (s *Server) toolSessionHandoff(ctx context.Context, req *mcp.CallToolRequest, in SessionHandoffInput) (*mcp.CallToolResult, SessionHandoffOutput, error) {
	var out SessionHandoffOutput
	summary := strings.TrimSpace(in.Summary)
	if summary == "" {
		return nil, out, fmt.Errorf("summary: write the summary that stands for the session up to its tail")
	}
	if in.To != "" && !handoff.Target(in.To).Harness() {
		return nil, out, fmt.Errorf("to: unknown harness %q (want %s)", in.To, strings.Join(harnessNames(), ", "))
	}
	dirs, ask := s.sessionsScope(ctx, req)
	if ask != nil {
		return ask, out, nil
	}
	repo, done, err := s.opts.OpenSessionsWrite(ctx)
	if err != nil {
		return nil, out, err
	}
	if repo == nil {
		return nil, out, fmt.Errorf("no sessions imported (lineage sessions import)")
	}
	defer done()
	info, err := s.handoffSession(ctx, repo, dirs, in.Session)
	if err != nil {
		return nil, out, err
	}
	to := handoff.Target(in.To)
	if to == "" {
		to = handoff.Target(info.Harness)
	}
	if !to.Harness() {
		return nil, out, fmt.Errorf("to: session %s is of harness %q: name the harness to hand off to (%s)", info.Tract, info.Harness, strings.Join(harnessNames(), ", "))
	}
	project := s.opts.Cwd
	if info.Cwd != "" && filepath.IsAbs(info.Cwd) {
		project = filepath.Clean(info.Cwd)
	}
	iopts := instructions.Options{Cwd: project, Home: s.opts.Home}
	if fi, err := os.Stat(project); err != nil || !fi.IsDir() {
		iopts.Cwd = s.opts.Cwd
	}
	cfg, err := repo.Config(ctx, info.Tract)
	if err != nil {
		return nil, out, err
	}
	var prune *tract.PrunePolicy
	if pp := cfg.PrunePolicy(); pp.Active() {
		// The session tract's stored policy, as lineage handoff applies it.
		prune = &pp
	}
	p, err := handoff.Prepare(ctx, handoff.Options{Repo: repo, Session: info, At: in.At, Summary: summary, Budget: in.Budget,
		To: to, Instructions: iopts, Prune: prune}, handoff.Dir(s.opts.HandoffDir), project, "", s.opts.Now())
	if err != nil {
		return nil, out, err
	}
	return nil, SessionHandoffOutput{Session: p.Session, Harness: p.Harness, At: p.At, To: string(p.To), Tract: p.Tract,
		Created: p.Created, Tail: p.Tail, Tokens: p.Context.Tokens, Project: p.Pending.Project,
		Expires: p.Pending.Expires.Format(time.RFC3339), Command: p.Command}, nil
}

// handoffSession is the session ref names, or the newest of the call's
// project; one outside the allowed roots is not found.
func (s *Server) handoffSession(ctx context.Context, repo *tract.Repo, dirs []string, ref string) (sessions.Info, error) {
	if ref != "" {
		info, err := sessions.Lookup(ctx, repo, ref)
		if err != nil {
			return info, err
		}
		if !inProject(dirs, info) {
			return info, fmt.Errorf("session %q: %w in this project (its working directory %s is outside the allowed roots)", ref, tract.ErrNotFound, info.Cwd)
		}
		return info, nil
	}
	lo := sessions.ListOptions{}
	if dirs == nil {
		// Every project is allowed: the server's own is the default.
		lo.Cwd = s.opts.Cwd
	}
	list, err := sessions.List(ctx, repo, lo)
	if err != nil {
		return sessions.Info{}, err
	}
	for _, i := range list {
		if inProject(dirs, i) {
			return i, nil
		}
	}
	return sessions.Info{}, fmt.Errorf("session: no imported session in this project (lineage sessions import, or name one)")
}
