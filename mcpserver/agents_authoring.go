package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/journal"
	"github.com/agentlineage/lineage/triad"
)

// AgentsLogInput are the arguments of agents_log.
type AgentsLogInput struct {
	AgentsJournalInput
	Slugs         []string `json:"slugs,omitempty" jsonschema:"further agents whose logs get the entry"`
	Details       []string `json:"details,omitempty" jsonschema:"detail lines"`
	Participants  []string `json:"participants,omitempty" jsonschema:"agent slugs involved: added to tags and, without contributions, each a contributor"`
	Links         []string `json:"links,omitempty" jsonschema:"links as 'href' or 'href|kind|title'"`
	Contributions []string `json:"contributions,omitempty" jsonschema:"contributions as 'by=<slug>,type=<type>,evidence=<text>[,weight=<n>]'"`
	Upsert        bool     `json:"upsert,omitempty" jsonschema:"replace the matching entry in place (same id; without id: same UTC day and title, else kind)"`
}

// AgentsCommissionInput are the arguments of agents_commission.
type AgentsCommissionInput struct {
	AgentsArgs
	Title     string `json:"title,omitempty" jsonschema:"the agent's title (default: the slug)"`
	Role      string `json:"role,omitempty" jsonschema:"the agent's role (default: the slug)"`
	Summary   string `json:"summary,omitempty" jsonschema:"the roster row's mission line"`
	Signature string `json:"signature,omitempty" jsonschema:"extensions.journalSignature"`
	From      string `json:"from,omitempty" jsonschema:"template: a directory of triad documents, or an agent slug"`
	DryRun    bool   `json:"dryRun,omitempty" jsonschema:"report the files, write nothing"`
}

func (s *Server) addAgentsAuthoringTools() {
	addTool(s, &mcp.Tool{
		Name:         "agents_log",
		Title:        "Append a rich agency entry",
		Description:  "CLIA's `triads agency log`, as `lineage agents journal --json` with --detail, --participants, --link, --contrib and --upsert: one entry in the log of slug and of every slugs; returns [{file, written, replaced?, entry}].",
		Annotations:  hints(false, false, false),
		InputSchema:  withEnums[AgentsLogInput](map[string][]string{"writeScope": writeScopes}),
		OutputSchema: anyObject,
	}, s.toolAgentsLog)
	addTool(s, &mcp.Tool{
		Name:        "agents_commission",
		Title:       "Create an agent",
		Description: "As `lineage agents commission SLUG --json`: the agent, agenda and agency documents at the write root and the AGENTS.md roster row; idempotent.",
		Annotations: hints(false, false, true),
	}, s.toolAgentsCommission)
}

func (s *Server) toolAgentsLog(ctx context.Context, req *mcp.CallToolRequest, in AgentsLogInput) (*mcp.CallToolResult, jsontext.Value, error) {
	if strings.TrimSpace(in.Note) == "" {
		return nil, nil, errors.New("note: must not be empty")
	}
	opts, sc, ask, err := s.agentsOptions(ctx, req, in.AgentsArgs)
	if err != nil || ask != nil {
		return ask, nil, err
	}
	e := journal.LogEntry{Entry: journal.Entry{Note: in.Note, Title: in.Title, Kind: in.Kind, Tags: in.Tags,
		Signature: in.Signature, DirsTouched: in.DirsTouched, ID: in.ID},
		Slugs: append([]string{in.Slug}, in.Slugs...), Details: in.Details, Participants: in.Participants, Upsert: in.Upsert}
	for _, l := range in.Links {
		link, err := journal.ParseLink(l)
		if err != nil {
			return nil, nil, fmt.Errorf("links: %w", err)
		}
		e.Links = append(e.Links, link)
	}
	for _, c := range in.Contributions {
		con, err := journal.ParseContribution(c)
		if err != nil {
			return nil, nil, fmt.Errorf("contributions: %w", err)
		}
		e.Contributions = append(e.Contributions, con)
	}
	jo, err := s.journalOptions(in.WriteScope)
	if err != nil {
		return nil, nil, err
	}
	jo.Agents = opts
	for _, slug := range e.Slugs {
		if err := checkWrite(sc, jo, slug); err != nil {
			return nil, nil, err
		}
	}
	res, err := journal.Log(ctx, jo, e)
	if err != nil {
		return nil, nil, err
	}
	arr := triad.NewArray()
	for _, r := range res {
		o := triad.NewObject()
		o.Set("file", triad.NewString(r.File))
		o.Set("written", &triad.Value{Kind: triad.Bool, Text: fmt.Sprint(r.Written)})
		if r.Replaced {
			o.Set("replaced", &triad.Value{Kind: triad.Bool, Text: "true"})
		}
		o.Set("entry", r.Entry)
		arr.Items = append(arr.Items, o)
	}
	out := triad.NewObject()
	out.Set("results", arr)
	return nil, jsontext.Value(triad.Encode(out, triad.EncodeOptions{})), nil
}

func (s *Server) toolAgentsCommission(ctx context.Context, req *mcp.CallToolRequest, in AgentsCommissionInput) (*mcp.CallToolResult, *journal.CommissionResult, error) {
	opts, sc, ask, err := s.agentsOptions(ctx, req, in.AgentsArgs)
	if err != nil || ask != nil {
		return ask, nil, err
	}
	jo, err := s.journalOptions("")
	if err != nil {
		return nil, nil, err
	}
	jo.Agents = opts
	if err := checkWrite(sc, jo, in.Slug); err != nil {
		return nil, nil, err
	}
	if in.From != "" && (filepath.IsAbs(in.From) || strings.ContainsAny(in.From, `/\.`)) {
		// A template directory (a slug has no separators or dots).
		if _, err := sc.path("from", in.From); err != nil {
			return nil, nil, err
		}
	}
	res, err := journal.Commissioned(ctx, jo, journal.Commission{Slug: in.Slug, Title: in.Title, Role: in.Role,
		Summary: in.Summary, Signature: in.Signature, From: in.From, DryRun: in.DryRun})
	return nil, res, err
}

// journalOptions checks a write scope (default submodule).
func (s *Server) journalOptions(scope string) (journal.Options, error) {
	if scope == "" {
		scope = journal.ScopeSubmodule
	}
	o := journal.Options{Scope: scope, Now: s.opts.Now}
	if err := o.Validate(); err != nil {
		return journal.Options{}, fmt.Errorf("writeScope: %w", err)
	}
	return o, nil
}
