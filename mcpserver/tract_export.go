package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
)

// addTractExportTools registers the JSON Lines export.
func (s *Server) addTractExportTools() {
	addTool(s, &mcp.Tool{
		Name:        "tract_export",
		Title:       "Export tracts",
		Description: "The tract (or, with all, the whole store) as `lineage tract export` JSON Lines: returned in export when it fits one result, or written to path (a file inside the client's roots, replaced atomically).",
		Annotations: hints(false, false, true),
	}, s.toolExport)
}

// ExportInput are the arguments of tract_export.
type ExportInput struct {
	TractArg
	All  bool   `json:"all,omitempty" jsonschema:"every live tract and every stored commit, not one tract"`
	Path string `json:"path,omitempty" jsonschema:"write the export to this file (inside the client's roots; relative to the working directory) instead of returning it"`
}

// ExportOutput is an export: the counts, and its JSON Lines in export or
// the file it was written to.
type ExportOutput struct {
	tract.ExportReport
	Path   string `json:"path,omitempty"`
	Export string `json:"export,omitempty" jsonschema:"the export as JSON Lines (lineage tract export), when no path was given"`
}

// errExportTooLarge is an export without a path that does not fit a result.
var errExportTooLarge = errors.New("the export is too large for one result: give path, a file inside your roots, to write it there")

func (s *Server) toolExport(ctx context.Context, req *mcp.CallToolRequest, in ExportInput) (*mcp.CallToolResult, ExportOutput, error) {
	o := tract.ExportOptions{All: in.All}
	if !in.All {
		o.Tract = s.tractName(in.Tract)
	} else if in.Tract != "" {
		return nil, ExportOutput{}, fmt.Errorf("tract: give a tract or all, not both")
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, ExportOutput{}, err
	}
	if in.Path == "" {
		var buf bytes.Buffer
		rep, err := repo.Export(ctx, &buf, o)
		if err != nil {
			return nil, ExportOutput{}, err
		}
		out := ExportOutput{ExportReport: rep, Export: buf.String()}
		if resultTokens(s.opts.Tokens, out) > s.opts.MaxResultTokens {
			return nil, ExportOutput{}, errExportTooLarge
		}
		return nil, out, nil
	}
	sc, ask := s.callScope(ctx, req)
	if ask != nil {
		return ask, ExportOutput{}, nil
	}
	p, err := sc.path("path", in.Path)
	if err != nil {
		return nil, ExportOutput{}, err
	}
	var rep tract.ExportReport
	err = sc.roots.WriteFile(p, 0o644, func(w io.Writer) error {
		var err error
		rep, err = repo.Export(ctx, w, o)
		return err
	})
	if err != nil {
		return nil, ExportOutput{}, fmt.Errorf("path: %w", err)
	}
	return nil, ExportOutput{ExportReport: rep, Path: p}, nil
}
