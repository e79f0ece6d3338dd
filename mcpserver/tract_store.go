package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
)

// addTractStoreTools registers the store's upkeep and whole-file imports:
// gc, verify, import (blame is with the history tools).
func (s *Server) addTractStoreTools() {
	addTool(s, &mcp.Tool{
		Name:        "tract_gc",
		Title:       "Remove unreachable commits",
		Description: "Remove the commits no ref of any tract reaches, older than retention (default 7d; 0s for none), as `lineage tract gc --json`; dryRun lists them and removes nothing. A second run removes nothing.",
		Annotations: hints(false, true, true),
	}, s.toolGC)
	addTool(s, &mcp.Tool{
		Name:        "tract_verify",
		Title:       "Check the store's integrity",
		Description: "Recompute every blob and commit hash and check every parent, edit target, ref and compile checkpoint, as `lineage tract verify --json`; ok is false and damage lists each problem when the store is damaged.",
		Annotations: hints(true, false, true),
	}, s.toolVerify)
	addTool(s, &mcp.Tool{
		Name:        "tract_import",
		Title:       "Import messages or an export",
		Description: "Append every message of an OpenAI message array (messages, or a file at path) to the tract in one transaction, as `lineage tract import --json` (a bad message anywhere writes nothing; the result has the context pressure after it); format jsonl reads one message per line, lineage adds a `lineage tract export` file (every hash checked). path must be inside the client's roots.",
		Annotations: hints(false, false, false),
		InputSchema: withEnums[ImportInput](map[string][]string{"format": {wire.ImportOpenAI, wire.ImportJSONL, "lineage"}}),
	}, s.toolImport)
}

// GCInput are the arguments of tract_gc.
type GCInput struct {
	Retention string `json:"retention,omitempty" jsonschema:"keep unreachable commits and reflog entries younger than this (default 7d; e.g. 0s, 12h)"`
	DryRun    bool   `json:"dryRun,omitempty" jsonschema:"list what would be removed and remove nothing"`
}

func (s *Server) toolGC(ctx context.Context, _ *mcp.CallToolRequest, in GCInput) (*mcp.CallToolResult, tract.GCReport, error) {
	keep := tract.DefaultRetention
	if in.Retention != "" {
		var err error
		if keep, err = tract.ParseRetention(in.Retention); err != nil {
			return nil, tract.GCReport{}, fmt.Errorf("retention: %w", err)
		}
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, tract.GCReport{}, err
	}
	rep, err := repo.GC(ctx, tract.GCOptions{Retention: keep, DryRun: in.DryRun})
	return nil, rep, err
}

// VerifyOutput is tract verify --json with ok: no damage found.
type VerifyOutput struct {
	OK bool `json:"ok"`
	tract.VerifyReport
}

func (s *Server) toolVerify(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, VerifyOutput, error) {
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, VerifyOutput{}, err
	}
	rep, err := repo.Verify(ctx)
	if err != nil {
		return nil, VerifyOutput{}, err
	}
	return nil, VerifyOutput{OK: len(rep.Damage) == 0, VerifyReport: rep}, nil
}

// ImportInput are the arguments of tract_import.
type ImportInput struct {
	TractArg
	Format   string           `json:"format,omitempty" jsonschema:"openai (default: a JSON array of messages), jsonl (one message per line) or lineage (a tract export)"`
	Path     string           `json:"path,omitempty" jsonschema:"the file to import (inside the client's roots; relative to the working directory)"`
	Messages []map[string]any `json:"messages,omitempty" jsonschema:"OpenAI messages to append, instead of a path"`
}

// ImportOutput is what tract_import added: messages appended (count, head,
// pressure) or, for a lineage export, the export's counts.
type ImportOutput struct {
	Format   string              `json:"format"`
	Count    int                 `json:"count"`
	Head     tract.Hash          `json:"head,omitempty"`
	Pressure *tract.Pressure     `json:"pressure,omitempty"`
	Export   *tract.ImportReport `json:"export,omitempty"`
}

// maxImportBytes bounds what tract_import reads from a file.
const maxImportBytes = 256 << 20

func (s *Server) toolImport(ctx context.Context, req *mcp.CallToolRequest, in ImportInput) (*mcp.CallToolResult, ImportOutput, error) {
	if in.Format == "" {
		in.Format = wire.ImportOpenAI
	}
	data, ask, err := s.importData(ctx, req, in)
	if ask != nil || err != nil {
		return ask, ImportOutput{}, err
	}
	repo, err := s.tracts.get(ctx)
	if err != nil {
		return nil, ImportOutput{}, err
	}
	out := ImportOutput{Format: in.Format}
	var msgs iter.Seq2[tract.CommitRequest, error]
	switch in.Format {
	case "lineage":
		p, err := tract.ParseExport(bytes.NewReader(data))
		if err != nil {
			return nil, ImportOutput{}, err
		}
		rep, err := repo.ImportExport(ctx, p)
		if err != nil {
			return nil, ImportOutput{}, err
		}
		out.Export = &rep
		return nil, out, nil
	case wire.ImportOpenAI:
		msgs = wire.OpenAIMessages(data)
	case wire.ImportJSONL:
		msgs = wire.JSONLMessages(data)
	default:
		return nil, ImportOutput{}, fmt.Errorf("format: unknown %q (want openai, jsonl or lineage)", in.Format)
	}
	name := s.tractName(in.Tract)
	sum, err := repo.ImportSeq(ctx, name, msgs)
	if err != nil {
		return nil, ImportOutput{}, err
	}
	out.Count, out.Head = sum.Count, sum.Head
	if sum.Count > 0 {
		p, err := repo.Pressure(ctx, name)
		if err != nil {
			return nil, ImportOutput{}, fmt.Errorf("imported %d messages, but the context's tokens are unknown: %w", sum.Count, err)
		}
		out.Pressure = &p
	}
	return nil, out, nil
}

// importData is what tract_import reads: the inline messages as a JSON
// array, or the file at path, opened through the allowed root holding it.
func (s *Server) importData(ctx context.Context, req *mcp.CallToolRequest, in ImportInput) ([]byte, *mcp.CallToolResult, error) {
	switch {
	case in.Path != "" && in.Messages != nil:
		return nil, nil, errors.New("path: give path or messages, not both")
	case in.Messages != nil:
		if in.Format != wire.ImportOpenAI {
			return nil, nil, fmt.Errorf("messages: inline messages are OpenAI messages (format openai), not %s", in.Format)
		}
		data, err := jsonv2.Marshal(in.Messages, jsonv2.Deterministic(true))
		return data, nil, err
	case in.Path == "":
		return nil, nil, errors.New("path: give the file to import (or messages)")
	}
	sc, ask := s.callScope(ctx, req)
	if ask != nil {
		return nil, ask, nil
	}
	p, err := sc.path("path", in.Path)
	if err != nil {
		return nil, nil, err
	}
	f, fi, err := sc.roots.OpenRegular(p)
	if err != nil {
		return nil, nil, fmt.Errorf("path: %w", err)
	}
	defer f.Close()
	if fi.Size() > maxImportBytes {
		return nil, nil, fmt.Errorf("path: %d bytes, more than import reads (%d MiB): split it", fi.Size(), maxImportBytes>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxImportBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("path: %w", err)
	}
	if len(data) > maxImportBytes {
		return nil, nil, fmt.Errorf("path: more than import reads (%d MiB): split it", maxImportBytes>>20)
	}
	return data, nil, nil
}
