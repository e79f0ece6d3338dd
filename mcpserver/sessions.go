package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
)

// SessionsOpener opens the store harness sessions are imported into (see
// package sessions), read-only, for one call; done closes it. A nil repo
// with no error means no session was imported yet.
type SessionsOpener func(ctx context.Context) (repo *tract.Repo, done func(), err error)

// SessionsListInput are the arguments of sessions_list.
type SessionsListInput struct {
	From string `json:"from,omitempty" jsonschema:"only this harness's sessions: claude, codex or gemini"`
}

// SessionsListOutput is sessions_list's answer, newest first.
type SessionsListOutput struct {
	Sessions []sessions.Info `json:"sessions"`
}

// SessionsFindInput are the arguments of sessions_find.
type SessionsFindInput struct {
	Query string `json:"query" jsonschema:"the words to search for"`
	From  string `json:"from,omitempty" jsonschema:"only this harness's sessions: claude, codex or gemini"`
	Limit int    `json:"limit,omitempty" jsonschema:"the best N hits (default 20)"`
}

// SessionsFindOutput is sessions_find's answer, best first.
type SessionsFindOutput struct {
	Hits []sessions.Hit `json:"hits"`
}

// SessionsShowInput are the arguments of sessions_show.
type SessionsShowInput struct {
	Session string `json:"session" jsonschema:"the session: its id, its tract's name or a unique prefix of either"`
}

// SessionsShowOutput is one session and its tract's branches.
type SessionsShowOutput struct {
	sessions.Info
	Branches []tract.Branch `json:"branches"`
}

func harnessNames() []string { return strs(sessions.Claude, sessions.Codex, sessions.Gemini) }

// addSessionsTools registers the tools over imported harness sessions.
func (s *Server) addSessionsTools() {
	from := map[string][]string{"from": harnessNames()}
	addTool(s, &mcp.Tool{
		Name:        "sessions_list",
		Title:       "List imported harness sessions",
		Description: "The harness sessions (Claude Code, Codex, Gemini CLI) imported by `lineage sessions import`, newest first, of this project (working directory inside the allowed roots) unless the server allows all projects, as `lineage sessions list --json`. Each names its tract in the sessions store.",
		Annotations: hints(true, false, true),
		InputSchema: withEnums[SessionsListInput](from),
	}, s.toolSessionsList)
	addTool(s, &mcp.Tool{
		Name:        "sessions_find",
		Title:       "Search imported harness sessions",
		Description: "Search the text of the imported sessions of this project (unless the server allows all projects), most occurrences of the query's words first, then newest, as `lineage sessions find QUERY --json`.",
		Annotations: hints(true, false, true),
		InputSchema: withEnums[SessionsFindInput](from),
	}, s.toolSessionsFind)
	addTool(s, &mcp.Tool{
		Name:        "sessions_show",
		Title:       "Show one imported harness session",
		Description: "One imported session of this project (unless the server allows all projects): harness, project, model, tokens, records and its tract's branches, as `lineage sessions show SESSION --json`.",
		Annotations: hints(true, false, true),
	}, s.toolSessionsShow)
}

// sessionsScope is what a sessions call may see: nil dirs means every
// project (Options.SessionsAll), else the call's allowed roots.
func (s *Server) sessionsScope(ctx context.Context, req *mcp.CallToolRequest) ([]string, *mcp.CallToolResult) {
	if s.opts.SessionsAll {
		return nil, nil
	}
	sc, ask := s.callScope(ctx, req)
	if ask != nil {
		return nil, ask
	}
	return sc.roots.Dirs(), nil
}

// inProject reports whether a session's working directory is inside one
// of dirs (nil: all).
func inProject(dirs []string, i sessions.Info) bool {
	if dirs == nil {
		return true
	}
	return i.Cwd != "" && slices.ContainsFunc(dirs, func(d string) bool { return fsx.Contains(d, i.Cwd) })
}

func harnessArg(from string) (sessions.Harness, error) {
	if from != "" && !slices.Contains(harnessNames(), from) {
		return "", fmt.Errorf("from: unknown harness %q (want %s)", from, strings.Join(harnessNames(), ", "))
	}
	return sessions.Harness(from), nil
}

func (s *Server) toolSessionsList(ctx context.Context, req *mcp.CallToolRequest, in SessionsListInput) (*mcp.CallToolResult, SessionsListOutput, error) {
	out := SessionsListOutput{Sessions: []sessions.Info{}}
	h, err := harnessArg(in.From)
	if err != nil {
		return nil, out, err
	}
	dirs, ask := s.sessionsScope(ctx, req)
	if ask != nil {
		return ask, out, nil
	}
	repo, done, err := s.opts.OpenSessions(ctx)
	if err != nil || repo == nil {
		return nil, out, err
	}
	defer done()
	list, err := sessions.List(ctx, repo, sessions.ListOptions{Harness: h})
	if err != nil {
		return nil, out, err
	}
	for _, i := range list {
		if inProject(dirs, i) {
			out.Sessions = append(out.Sessions, i)
		}
	}
	return nil, out, nil
}

func (s *Server) toolSessionsFind(ctx context.Context, req *mcp.CallToolRequest, in SessionsFindInput) (*mcp.CallToolResult, SessionsFindOutput, error) {
	out := SessionsFindOutput{Hits: []sessions.Hit{}}
	h, err := harnessArg(in.From)
	if err != nil {
		return nil, out, err
	}
	limit := in.Limit
	if limit < 0 {
		return nil, out, fmt.Errorf("limit: must be 0 or more, got %d", limit)
	}
	if limit == 0 {
		limit = 20
	}
	dirs, ask := s.sessionsScope(ctx, req)
	if ask != nil {
		return ask, out, nil
	}
	repo, done, err := s.opts.OpenSessions(ctx)
	if err != nil || repo == nil {
		return nil, out, err
	}
	defer done()
	// The project filter comes after the ranking, so the limit after it.
	hits, err := sessions.Find(ctx, repo, sessions.FindOptions{Text: in.Query, ListOptions: sessions.ListOptions{Harness: h}})
	if err != nil {
		return nil, out, err
	}
	for _, hit := range hits {
		if inProject(dirs, hit.Session) && len(out.Hits) < limit {
			out.Hits = append(out.Hits, hit)
		}
	}
	return nil, out, nil
}

func (s *Server) toolSessionsShow(ctx context.Context, req *mcp.CallToolRequest, in SessionsShowInput) (*mcp.CallToolResult, SessionsShowOutput, error) {
	var out SessionsShowOutput
	if in.Session == "" {
		return nil, out, fmt.Errorf("session: name the session to show")
	}
	dirs, ask := s.sessionsScope(ctx, req)
	if ask != nil {
		return ask, out, nil
	}
	repo, done, err := s.opts.OpenSessions(ctx)
	if err != nil {
		return nil, out, err
	}
	if repo == nil {
		return nil, out, fmt.Errorf("session %q: no sessions imported", in.Session)
	}
	defer done()
	info, err := sessions.Lookup(ctx, repo, in.Session)
	if err != nil {
		return nil, out, err
	}
	if !inProject(dirs, info) {
		return nil, out, fmt.Errorf("session %q: %w in this project (its working directory %s is outside the allowed roots)", in.Session, tract.ErrNotFound, info.Cwd)
	}
	branches, err := repo.Branches(ctx, info.Tract)
	if err != nil {
		return nil, out, err
	}
	return nil, SessionsShowOutput{Info: info, Branches: branches}, nil
}
