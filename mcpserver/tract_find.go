package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

// TagInput are the arguments of tract_tag: list (no name), create name (at
// ref), or delete.
type TagInput struct {
	TractArg
	Name   string `json:"name,omitempty" jsonschema:"tag to create"`
	Ref    string `json:"ref,omitempty" jsonschema:"commit the new tag names (default HEAD)"`
	Delete string `json:"delete,omitempty" jsonschema:"tag to delete"`
}

// TagOutput is what tract_tag did: the tags (tract tags --json), the tag
// created, or the tag deleted.
type TagOutput struct {
	Tags    []tract.Tag `json:"tags,omitempty"`
	Created *tract.Tag  `json:"created,omitempty"`
	Deleted *tract.Tag  `json:"deleted,omitempty"`
}

// FindInput are the arguments of tract_find (as tract find).
type FindInput struct {
	TractArg
	Text      string            `json:"text,omitempty" jsonschema:"words that must all occur in the content (whole words, any case)"`
	Type      string            `json:"type,omitempty" jsonschema:"only this content type"`
	Role      string            `json:"role,omitempty" jsonschema:"only this role"`
	Tag       string            `json:"tag,omitempty" jsonschema:"only the commit this tag names"`
	Meta      map[string]string `json:"meta,omitempty" jsonschema:"metadata key → value each match must hold"`
	AllTracts bool              `json:"allTracts,omitempty" jsonschema:"search every tract, not only this one's commits"`
	Limit     int               `json:"limit,omitempty" jsonschema:"most results (default 50)"`
}

// FindOutput lists the matching commits, oldest first.
type FindOutput struct {
	Found []tract.Found `json:"found"`
}

const defaultFindLimit = 50

func (s *Server) addTractFindTools() {
	addTool(s, &mcp.Tool{
		Name:        "tract_tag",
		Title:       "List, create or delete tags",
		Description: "Without arguments, list the tract's tags (as `lineage tract tags --json`); with name, tag a commit (ref, default HEAD); with delete, delete a tag. A tag is a fixed ref: it resolves wherever a ref is taken and keeps its commit through gc.",
		Annotations: hints(false, true, false),
	}, s.toolTag)
	addTool(s, &mcp.Tool{
		Name:        "tract_find",
		Title:       "Find commits",
		Description: "Commits whose content holds every word of text, filtered by type, role, tag and metadata, oldest first, as `lineage tract find --json`. Searches this tract's own commits unless allTracts.",
		Annotations: hints(true, false, true),
	}, s.toolFind)
}

func (s *Server) toolTag(ctx context.Context, _ *mcp.CallToolRequest, in TagInput) (*mcp.CallToolResult, TagOutput, error) {
	if in.Delete != "" && in.Name != "" {
		return nil, TagOutput{}, fmt.Errorf("give a tag to create (name) or delete, not both")
	}
	if in.Ref != "" && in.Name == "" {
		return nil, TagOutput{}, fmt.Errorf("ref: only with name")
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, TagOutput{}, err
	}
	name := s.tractName(in.Tract)
	switch {
	case in.Delete != "":
		t, err := repo.DeleteTag(ctx, name, in.Delete)
		return nil, TagOutput{Deleted: &t}, err
	case in.Name != "":
		t, err := repo.CreateTag(ctx, name, in.Name, in.Ref)
		return nil, TagOutput{Created: &t}, err
	}
	tags, err := repo.Tags(ctx, name)
	return nil, TagOutput{Tags: tags}, err
}

func (s *Server) toolFind(ctx context.Context, _ *mcp.CallToolRequest, in FindInput) (*mcp.CallToolResult, FindOutput, error) {
	if in.Limit < 0 {
		return nil, FindOutput{}, fmt.Errorf("limit: must be 0 or more, got %d", in.Limit)
	}
	if in.Limit == 0 {
		in.Limit = defaultFindLimit
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, FindOutput{}, err
	}
	found, err := repo.Find(ctx, s.tractName(in.Tract), tract.FindOptions{Text: in.Text, Type: tract.Type(in.Type), Role: in.Role,
		Tag: in.Tag, Meta: in.Meta, AllTracts: in.AllTracts, Limit: in.Limit})
	return nil, FindOutput{Found: found}, err
}
