package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/journal"
	"github.com/agentlineage/lineage/triad"
)

// AgentsArgs are the arguments every agents tool shares.
type AgentsArgs struct {
	Slug string `json:"slug" jsonschema:"agent slug (the context directory name under .clia/agents)"`
	Path string `json:"path,omitempty" jsonschema:"working path P (absolute, or relative to the server's working directory; default: it)"`
}

// AgentsContextInput are the arguments of agents_context.
type AgentsContextInput struct {
	AgentsArgs
	Explain bool `json:"explain,omitempty" jsonschema:"accepted for parity with the CLI: the result always carries the default chain, injected roots and exclusions"`
}

// AgentsProfileInput are the arguments of agents_profile.
type AgentsProfileInput struct {
	AgentsArgs
	Kind      string `json:"kind,omitempty" jsonschema:"agent (default), agenda or agency"`
	Explain   bool   `json:"explain,omitempty" jsonschema:"return {merged, provenance}: the file each value came from"`
	RootChain bool   `json:"rootChain,omitempty" jsonschema:"add contextChain: [{prefix, path}]"`
}

// AgentsJournalInput are the arguments of agents_journal.
type AgentsJournalInput struct {
	AgentsArgs
	Note        string   `json:"note" jsonschema:"the entry's text (its summary)"`
	Title       string   `json:"title,omitempty" jsonschema:"entry title (default: the note's first line)"`
	Kind        string   `json:"kind,omitempty" jsonschema:"entry kind (default journal)"`
	Tags        []string `json:"tags,omitempty" jsonschema:"tags"`
	ID          string   `json:"id,omitempty" jsonschema:"entry id (default: the hash of the entry); an id already in the file is not written again"`
	WriteScope  string   `json:"writeScope,omitempty" jsonschema:"write root: submodule (default: the repo root of the path), workspace or local (the path)"`
	Signature   string   `json:"signature,omitempty" jsonschema:"auto (default: the profile's extensions.journalSignature, else -<slug>) or a signature"`
	DirsTouched []string `json:"dirsTouched,omitempty" jsonschema:"directories, unioned into extensions[\"x-dirsTouched\"]"`
}

// anyObject is the output schema of results that are whole triad
// documents: any JSON object.
var anyObject = &jsonschema.Schema{Type: "object"}

func (s *Server) addAgentsTools() {
	addTool(s, &mcp.Tool{
		Name:        "agents_context",
		Title:       "Agent context chain",
		Description: "The context directories of an agent slug seen from a path, global to local, with the default chain, injected roots and exclusions, as `lineage agents context --json`.",
		Annotations: hints(true, false, true),
	}, s.toolAgentsContext)
	addTool(s, &mcp.Tool{
		Name:         "agents_profile",
		Title:        "Merged agent profile",
		Description:  "The deterministic merge of an agent's triad documents (agent, agenda or agency) along its context chain, as `lineage agents profile`.",
		Annotations:  hints(true, false, true),
		InputSchema:  withEnums[AgentsProfileInput](map[string][]string{"kind": strs(triad.Kinds...)}),
		OutputSchema: anyObject,
	}, s.toolAgentsProfile)
	addTool(s, &mcp.Tool{
		Name:         "agents_journal",
		Title:        "Append a journal entry",
		Description:  "Append one entry to the agent's agency log at the write root of the path, as `lineage agents journal --json`: {file, written, entry}. Append-only; an id already present is not written again.",
		Annotations:  hints(false, false, false),
		InputSchema:  withEnums[AgentsJournalInput](map[string][]string{"writeScope": writeScopes}),
		OutputSchema: anyObject,
	}, s.toolAgentsJournal)
	s.addAgentsAuthoringTools()
	s.addAgentsAgendaTool()
}

// writeScopes are the values of writeScope.
var writeScopes = []string{journal.ScopeSubmodule, journal.ScopeWorkspace, journal.ScopeLocal}

// agentsOptions checks the slug and the path (inside the allowed roots)
// and returns the options for the path and the call's scope.
func (s *Server) agentsOptions(ctx context.Context, req *mcp.CallToolRequest, a AgentsArgs) (agents.Options, scope, *mcp.CallToolResult, error) {
	if err := agents.ValidateSlug(a.Slug); err != nil {
		return agents.Options{}, scope{}, nil, fmt.Errorf("slug: %w", err)
	}
	sc, ask := s.callScope(ctx, req)
	if ask != nil {
		return agents.Options{}, scope{}, ask, nil
	}
	p, err := sc.path("path", a.Path)
	if err != nil {
		return agents.Options{}, scope{}, nil, err
	}
	return agents.Options{Path: p, Open: sc.roots.OpenRegular}, sc, nil, nil
}

// checkChain refuses a chain with a context directory whose real path
// leads outside the allowed roots, before any of its documents is merged.
func checkChain(sc scope, ch *agents.Chain) error {
	for _, c := range ch.Contexts {
		if err := sc.check("context "+c.Prefix, c.Dir); err != nil {
			return err
		}
	}
	return nil
}

// checkWrite refuses a journal write whose target directory (the agent's
// context at the write root) leads outside the allowed roots.
func checkWrite(sc scope, jo journal.Options, slug string) error {
	t, err := journal.ResolveTarget(jo.Agents, slug, jo.Scope, jo.AgentsDir)
	if err != nil {
		return err
	}
	return sc.check("write target", t.Dir)
}

func (s *Server) toolAgentsContext(ctx context.Context, req *mcp.CallToolRequest, in AgentsContextInput) (*mcp.CallToolResult, *agents.Chain, error) {
	opts, _, ask, err := s.agentsOptions(ctx, req, in.AgentsArgs)
	if err != nil || ask != nil {
		return ask, nil, err
	}
	ch, err := agents.Resolve(opts, in.Slug)
	if err != nil {
		return nil, nil, err
	}
	return nil, ch, nil
}

func (s *Server) toolAgentsProfile(ctx context.Context, req *mcp.CallToolRequest, in AgentsProfileInput) (*mcp.CallToolResult, jsontext.Value, error) {
	kind := in.Kind
	if kind == "" {
		kind = string(triad.Agent)
	}
	k, err := triad.ParseKind(kind)
	if err != nil {
		return nil, nil, fmt.Errorf("kind: %w", err)
	}
	opts, sc, ask, err := s.agentsOptions(ctx, req, in.AgentsArgs)
	if err != nil || ask != nil {
		return ask, nil, err
	}
	ch, err := agents.Resolve(opts, in.Slug)
	if err != nil {
		return nil, nil, err
	}
	if err := checkChain(sc, ch); err != nil {
		return nil, nil, err
	}
	p, err := ch.RequireProfile(k)
	if err != nil {
		return nil, nil, err
	}
	return nil, jsontext.Value(triad.Canonical(p.Document(agents.DocumentOptions{ContextChain: in.RootChain, Explain: in.Explain}))), nil
}

func (s *Server) toolAgentsJournal(ctx context.Context, req *mcp.CallToolRequest, in AgentsJournalInput) (*mcp.CallToolResult, jsontext.Value, error) {
	if strings.TrimSpace(in.Note) == "" {
		return nil, nil, errors.New("note: must not be empty")
	}
	jo, err := s.journalOptions(in.WriteScope)
	if err != nil {
		return nil, nil, err
	}
	opts, sc, ask, err := s.agentsOptions(ctx, req, in.AgentsArgs)
	if err != nil || ask != nil {
		return ask, nil, err
	}
	e := journal.Entry{Slug: in.Slug, Note: in.Note, Title: in.Title, Kind: in.Kind, Tags: in.Tags,
		Signature: in.Signature, DirsTouched: in.DirsTouched, ID: in.ID}
	if e.Kind == "" {
		e.Kind = "journal"
	}
	jo.Agents = opts
	if err := checkWrite(sc, jo, in.Slug); err != nil {
		return nil, nil, err
	}
	res, err := journal.Append(ctx, jo, e)
	if err != nil {
		return nil, nil, err
	}
	return nil, jsontext.Value(triad.Encode(res.Document(), triad.EncodeOptions{})), nil
}
