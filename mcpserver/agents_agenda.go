package mcpserver

import (
	"context"
	"errors"
	"reflect"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/triad"
)

// AgentsAgendaInput are the arguments of agents_agenda.
type AgentsAgendaInput struct {
	Path        string `json:"path,omitempty" jsonschema:"working path P; every agent under its workspace root is listed (default: the server's working directory)"`
	Calendar    string `json:"calendar,omitempty" jsonschema:"calendar view: day, week, month or all (default: the plain view of current items, milestones and backlog)"`
	ActiveOnly  bool   `json:"activeOnly,omitempty" jsonschema:"only agents whose merged status is active"`
	BacklogOnly bool   `json:"backlogOnly,omitempty" jsonschema:"plain view: only the backlog"`
	CurrentOnly bool   `json:"currentOnly,omitempty" jsonschema:"plain view: only the current (next) items"`
}

// agendaInputSchema is the inferred schema with calendar's fixed values as
// an enum, so clients offer them.
func agendaInputSchema() *jsonschema.Schema {
	s, err := jsonschema.ForType(reflect.TypeFor[AgentsAgendaInput](), nil)
	if err != nil {
		panic("agents_agenda: input schema: " + err.Error())
	}
	for _, c := range agents.Calendars {
		s.Properties["calendar"].Enum = append(s.Properties["calendar"].Enum, c)
	}
	return s
}

func (s *Server) addAgentsAgendaTool() {
	addTool(s, &mcp.Tool{
		Name:  "agents_agenda",
		Title: "Agendas of every agent",
		Description: "As `lineage agents agenda`: the merged agenda of every agent under the workspace root of path, " +
			"{agents:[{agent,title,status,path,current,milestones,backlog}]}, or with calendar the " +
			"{day|week|month:[{agent,title,status,path,items,milestones}]} roll-up (open milestones due today, " +
			"within 7 or 30 days; overdue ones marked overdue:true). Read-only.",
		Annotations:  hints(true, false, true),
		InputSchema:  agendaInputSchema(),
		OutputSchema: anyObject,
	}, s.toolAgentsAgenda)
}

func (s *Server) toolAgentsAgenda(ctx context.Context, req *mcp.CallToolRequest, in AgentsAgendaInput) (*mcp.CallToolResult, jsontext.Value, error) {
	if in.Calendar != "" && (in.BacklogOnly || in.CurrentOnly) {
		return nil, nil, errors.New("backlogOnly, currentOnly: the calendar view cannot be limited to one part")
	}
	if in.BacklogOnly && in.CurrentOnly {
		return nil, nil, errors.New("backlogOnly: cannot be combined with currentOnly")
	}
	sc, ask := s.callScope(ctx, req)
	if ask != nil {
		return ask, nil, nil
	}
	p, err := sc.path("path", in.Path)
	if err != nil {
		return nil, nil, err
	}
	v, err := agents.CollectAgenda(agents.Options{Path: p, Open: sc.roots.OpenRegular}, agents.AgendaOptions{Calendar: in.Calendar,
		ActiveOnly: in.ActiveOnly, BacklogOnly: in.BacklogOnly, CurrentOnly: in.CurrentOnly, Now: s.opts.Now()})
	if err != nil {
		return nil, nil, err
	}
	return nil, jsontext.Value(triad.Canonical(v.Value())), nil
}
