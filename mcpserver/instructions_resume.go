package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/instructions"
)

// ResumeInput are the arguments of instructions_resume.
type ResumeInput struct {
	State string `json:"state" jsonschema:"the session state file saved by instructions initial --state (absolute, or relative to the working directory)"`
	Cwd   string `json:"cwd,omitempty" jsonschema:"working directory now (default: the server's)"`
}

// ResumeOutput is what changed since the session was saved.
type ResumeOutput struct {
	// Reminder is the session.resume.diff system reminder, "" when nothing
	// differs.
	Reminder string `json:"reminder" jsonschema:"the session.resume.diff system reminder to act on first; empty when nothing changed"`
	State    string `json:"state" jsonschema:"the state file, now holding the resumed session"`
}

func (s *Server) addInstructionResumeTool() {
	addTool(s, &mcp.Tool{
		Name:  "instructions_resume",
		Title: "Resume a saved instruction session",
		Description: "Compare the instruction session saved in a state file (as `lineage instructions resume --state FILE`) " +
			"with the working directory, root, markers and AGENTS.md chain now; return the session.resume.diff " +
			"reminder (act on it first) and make the resumed session this session's, saved back in the file.",
		Annotations: hints(false, false, false),
	}, s.toolResume)
}

func (s *Server) toolResume(ctx context.Context, req *mcp.CallToolRequest, in ResumeInput) (*mcp.CallToolResult, ResumeOutput, error) {
	if in.State == "" {
		return nil, ResumeOutput{}, errors.New("state: give the session state file")
	}
	sc, ask := s.callScope(ctx, req)
	if ask != nil {
		return ask, ResumeOutput{}, nil
	}
	state, err := sc.path("state", in.State)
	if err != nil {
		return nil, ResumeOutput{}, err
	}
	cwd, err := sc.path("cwd", in.Cwd)
	if err != nil {
		return nil, ResumeOutput{}, err
	}
	// The state file is read and written through the allowed root that
	// holds its directory: a directory swapped for a link after the check
	// leads neither the read nor the write outside.
	dir, err := sc.roots.OpenDir(filepath.Dir(state))
	if err != nil {
		return nil, ResumeOutput{}, fmt.Errorf("state: %w", err)
	}
	defer dir.Close()
	r, err := instructions.ResumeSessionFile(ctx, state, instructions.StateFileOptions{Dir: dir}, s.instructionOptions(cwd, sc))
	if errors.Is(err, instructions.ErrNoSession) {
		return nil, ResumeOutput{}, fmt.Errorf("state: no session saved in %s (start one with 'lineage instructions initial --state')", state)
	}
	if err != nil {
		return nil, ResumeOutput{}, err
	}
	if err := s.setInstructionSession(ctx, req.Session, r.Session); err != nil {
		return nil, ResumeOutput{}, err
	}
	return textResult(r.Text), ResumeOutput{Reminder: r.Text, State: state}, nil
}
