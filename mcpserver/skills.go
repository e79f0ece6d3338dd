package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/skills"
)

// SkillsOptions configure the skills tools and the catalog in the server
// instructions.
type SkillsOptions struct {
	// Disabled leaves the skills tools and the catalog out.
	Disabled bool
	// User adds the user's skill folders; Extra more folders (absolute).
	// Both are the operator's choice, so they are readable even outside
	// the allowed roots; project skills must lie inside them.
	User  bool
	Extra []string
	// CacheDir is the metadata cache (see skills.Options.CacheDir).
	CacheDir string
}

// skillState keeps, per MCP session, which skill versions it was given.
type skillState struct {
	mu       sync.Mutex
	trackers map[*mcp.ServerSession]*skills.Tracker
}

// SkillsListInput are the arguments of skills_list.
type SkillsListInput struct {
	Cwd string `json:"cwd,omitempty" jsonschema:"working directory (absolute, or relative to the server's); default: the server's"`
}

// SkillsLoadInput are the arguments of skills_load.
type SkillsLoadInput struct {
	Name     string `json:"name" jsonschema:"the skill's name, as the catalog lists it"`
	Resource string `json:"resource,omitempty" jsonschema:"a file of the skill's folder (relative to it) to load instead of the body"`
	Cwd      string `json:"cwd,omitempty" jsonschema:"working directory (absolute, or relative to the server's); default: the server's"`
}

// SkillsLoadOutput is a load: the text to follow, or a short answer when
// this session already has this exact version.
type SkillsLoadOutput struct {
	// Text is the skill (or resource) as the model reads it, or the
	// already-loaded answer.
	Text          string `json:"text"`
	AlreadyLoaded bool   `json:"alreadyLoaded"`
	skills.Loaded `json:",inline"`
}

// SkillsSearchInput are the arguments of skills_search.
type SkillsSearchInput struct {
	Query string `json:"query" jsonschema:"words describing the task; matched against skill names and descriptions"`
	Limit int    `json:"limit,omitempty" jsonschema:"most matches (default 10)"`
	Cwd   string `json:"cwd,omitempty" jsonschema:"working directory (absolute, or relative to the server's); default: the server's"`
}

// SkillsSearchOutput are the ranked matches.
type SkillsSearchOutput struct {
	Query   string         `json:"query"`
	Matches []skills.Match `json:"matches"`
}

func (s *Server) addSkillsTools() {
	if s.opts.Skills.Disabled {
		return
	}
	addTool(s, &mcp.Tool{
		Name:  "skills_list",
		Title: "List the Agent Skills",
		Description: "The Agent Skills (SKILL.md) that apply to the working directory: name, description, " +
			"SKILL.md path, scope and body tokens of each, the shadowed ones and the files with problems, " +
			"as `lineage skills list --json`.",
		Annotations: hints(true, false, true),
	}, s.toolSkillsList)
	addTool(s, &mcp.Tool{
		Name:  "skills_load",
		Title: "Load a skill",
		Description: "Load a skill's instructions (its SKILL.md body, with its folder and files) before doing a " +
			"task it covers, or one file of its folder with resource. A second load of an unchanged skill in " +
			"this session answers \"already loaded\"; a changed one is given again.",
		Annotations: hints(false, false, false),
	}, s.toolSkillsLoad)
	addTool(s, &mcp.Tool{
		Name:        "skills_search",
		Title:       "Search the Agent Skills",
		Description: "Rank the skills against a task description: exact name, name prefix, name containing the query, then the query's words in names and descriptions, as `lineage skills search --json`.",
		Annotations: hints(true, false, true),
	}, s.toolSkillsSearch)
}

// skillsCatalog discovers the skills for cwd. Project skills outside the
// call's allowed roots are left out (and reported as problems).
func (s *Server) skillsCatalog(cwd string, sc *scope) (*skills.Catalog, error) {
	o := skills.Options{Cwd: cwd, Home: s.opts.Home, Root: s.cfg.Root, User: s.opts.Skills.User,
		Extra: s.opts.Skills.Extra, CacheDir: s.opts.Skills.CacheDir}
	cat, err := skills.Discover(o)
	if err != nil || sc == nil {
		return cat, err
	}
	keep := cat.Skills[:0]
	for _, sk := range cat.Skills {
		if sk.Scope == skills.ScopeProject {
			if err := sc.roots.Check(sk.Path); err != nil {
				cat.Problems = append(cat.Problems, skills.Problem{Path: sk.Path, Message: "outside the allowed roots: " + err.Error()})
				continue
			}
		}
		keep = append(keep, sk)
	}
	cat.Skills = keep
	return cat, nil
}

func (s *Server) skillsFor(ctx context.Context, req *mcp.CallToolRequest, cwdArg string) (*skills.Catalog, *mcp.CallToolResult, error) {
	sc, ask := s.callScope(ctx, req)
	if ask != nil {
		return nil, ask, nil
	}
	cwd, err := sc.path("cwd", cwdArg)
	if err != nil {
		return nil, nil, err
	}
	cat, err := s.skillsCatalog(cwd, &sc)
	return cat, nil, err
}

func (s *Server) toolSkillsList(ctx context.Context, req *mcp.CallToolRequest, in SkillsListInput) (*mcp.CallToolResult, *skills.Catalog, error) {
	cat, ask, err := s.skillsFor(ctx, req, in.Cwd)
	if ask != nil || err != nil {
		return ask, nil, err
	}
	defer cat.Close()
	return nil, cat, nil
}

func (s *Server) toolSkillsLoad(ctx context.Context, req *mcp.CallToolRequest, in SkillsLoadInput) (*mcp.CallToolResult, SkillsLoadOutput, error) {
	if strings.TrimSpace(in.Name) == "" {
		return nil, SkillsLoadOutput{}, errors.New("name: give the skill's name (skills_list or skills_search shows them)")
	}
	cat, ask, err := s.skillsFor(ctx, req, in.Cwd)
	if ask != nil || err != nil {
		return ask, SkillsLoadOutput{}, err
	}
	defer cat.Close()
	var l *skills.Loaded
	if in.Resource != "" {
		l, err = cat.Resource(in.Name, in.Resource)
	} else {
		l, err = cat.Load(in.Name)
	}
	if err != nil {
		return nil, SkillsLoadOutput{}, err
	}
	out := SkillsLoadOutput{Loaded: *l}
	if s.skillTracker(req.Session).Seen(l) {
		out.AlreadyLoaded, out.Text = true, l.AlreadyLoaded()
		out.Content, out.Files = "", nil
	} else {
		out.Text = l.Text()
	}
	if resultTokens(s.opts.Tokens, out) > s.opts.MaxResultTokens {
		return nil, SkillsLoadOutput{}, fmt.Errorf("%s is too long for one result (over %d tokens): load the parts it names with resource", in.Name, s.opts.MaxResultTokens)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.Text}}}, out, nil
}

func (s *Server) toolSkillsSearch(ctx context.Context, req *mcp.CallToolRequest, in SkillsSearchInput) (*mcp.CallToolResult, SkillsSearchOutput, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, SkillsSearchOutput{}, errors.New("query: must not be empty")
	}
	if in.Limit < 0 {
		return nil, SkillsSearchOutput{}, fmt.Errorf("limit: must be 0 or more, got %d", in.Limit)
	}
	if in.Limit == 0 {
		in.Limit = 10
	}
	cat, ask, err := s.skillsFor(ctx, req, in.Cwd)
	if ask != nil || err != nil {
		return ask, SkillsSearchOutput{}, err
	}
	defer cat.Close()
	return nil, SkillsSearchOutput{Query: in.Query, Matches: cat.Search(in.Query, in.Limit)}, nil
}

// skillTracker is the session's tracker; trackers of sessions that are gone
// are dropped.
func (s *Server) skillTracker(ss *mcp.ServerSession) *skills.Tracker {
	st := &s.skillState
	st.mu.Lock()
	defer st.mu.Unlock()
	if t, ok := st.trackers[ss]; ok {
		return t
	}
	if st.trackers == nil {
		st.trackers = map[*mcp.ServerSession]*skills.Tracker{}
	}
	alive := map[*mcp.ServerSession]bool{}
	for a := range s.srv.Sessions() {
		alive[a] = true
	}
	for k := range st.trackers {
		if !alive[k] {
			delete(st.trackers, k)
		}
	}
	t := &skills.Tracker{}
	st.trackers[ss] = t
	return t
}

// clientInstructions completes the initialize answer's instructions with
// the skills catalog for the client: the skills of the server's directory
// that the client's harness does not list itself (Claude Code lists
// .claude/skills; see [skills.ListedBy]).
func (s *Server) clientInstructions(guide string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			// The legacy handshake (initialize) and the 2026-07-28 one
			// (server/discover) both carry the instructions.
			switch r := res.(type) {
			case *mcp.InitializeResult:
				r.Instructions = guide + s.skillsInstructions(hookHarnesses[requestClient(req)])
			case *mcp.DiscoverResult:
				r.Instructions = guide + s.skillsInstructions(hookHarnesses[requestClient(req)])
			}
			return res, err
		}
	}
}

// requestClient is the client's name (its clientInfo) as an initialize or
// discover request gives it, else as its session knows it.
func requestClient(req mcp.Request) string {
	var ci *mcp.Implementation
	switch r := req.(type) {
	case *mcp.ServerRequest[*mcp.InitializeParams]:
		if r.Params != nil {
			ci = r.Params.ClientInfo
		}
	case *mcp.ServerRequest[*mcp.DiscoverParams]:
		ci = r.ClientInfo()
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ci == nil {
		if p := ss.InitializeParams(); p != nil {
			ci = p.ClientInfo
		}
	}
	if ci == nil {
		return ""
	}
	return ci.Name
}

// skillsInstructions is the catalog added to the server instructions: the
// skills of the server's directory that harness ("" for a client lineage
// does not recognise) does not list itself, bounded, with the rule to load
// a skill with skills_load before using it. "" when there are none.
func (s *Server) skillsInstructions(harness string) string {
	if s.opts.Skills.Disabled {
		return ""
	}
	sc := s.scopeOf(nil)
	cat, err := s.skillsCatalog(s.opts.Cwd, &sc)
	if err != nil {
		return ""
	}
	defer cat.Close()
	b := cat.Block(skills.BlockOptions{
		Load:  "call skills_load with its name",
		Reach: "call skills_search with the task, then skills_load with its name",
		Omit:  func(sk skills.Skill) bool { return harness != "" && skills.ListedBy(harness, sk) },
	})
	if b.Text == "" {
		return ""
	}
	return "\n\n" + b.Text
}
