package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
)

// RosterSeparator is the header separator line of CLIA's AGENTS.md roster
// table (clia-org/clia-agent-cli .clia/schemas/specs/agents-roster.v1.md).
const RosterSeparator = "| ----- | ------- | -------- |"

// rosterTransitional marks a placeholder row CLIA wrote before a real one.
const rosterTransitional = "_(commissioned via CLI)_"

// RosterRow is one agent's roster line.
type RosterRow struct {
	Title, Slug, Summary string
	// AgentsRoot is the agents root of the path cell (default .clia/agents).
	AgentsRoot string
}

// Line is the Markdown row: | <Title> | <Summary> | `<agents root>/<slug>/` |.
func (r RosterRow) Line() string {
	return fmt.Sprintf("| %s | %s | %s |", oneLine(r.Title), oneLine(r.Summary), r.pathCell())
}

func (r RosterRow) pathCell() string {
	root := r.AgentsRoot
	if root == "" {
		root = ".clia/agents"
	}
	return "`" + filepath.ToSlash(root) + "/" + r.Slug + "/`"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "|", `\|`)), " ")
}

// RosterResult reports a roster update.
type RosterResult struct {
	File    string `json:"file"`
	Row     string `json:"row"`
	Written bool   `json:"written"`
	Created bool   `json:"created"`
	// After is the file's new text (also for a dry run).
	After string `json:"-"`
}

// UpdateRoster adds r to <root>/AGENTS.md as the roster spec says: the row
// goes directly under the table's separator line, else a table is appended;
// a missing file gets a minimal one. Unlike the spec's exact-string dedupe, a
// row is already present when any line holds the agent's path cell, so
// re-running with another title or summary changes nothing; transitional
// "_(commissioned via CLI)_" rows are removed only for this agent. No other
// byte of the file changes. The write is atomic and serialized by a lock
// under the agents root.
func UpdateRoster(ctx context.Context, root string, r RosterRow, dryRun bool) (*RosterResult, error) {
	if strings.TrimSpace(r.Title) == "" {
		return nil, errors.New("roster: title is empty")
	}
	path := filepath.Join(root, "AGENTS.md")
	res := &RosterResult{File: path, Row: r.Line()}
	if err := checkFile(root, path); err != nil {
		return nil, err
	}
	// Read and written through the root (see openDir).
	dir, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	if !dryRun {
		lockDir, err := openDir(root, filepath.Join(root, r.agentsRoot()))
		if err != nil {
			return nil, err
		}
		defer lockDir.Close()
		lock, err := fsx.LockFileIn(ctx, lockDir, rosterLockName)
		if err != nil {
			return nil, err
		}
		defer lock.Unlock()
	}
	perm := os.FileMode(0o644)
	data, _, err := readIn(dir, "AGENTS.md", path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		res.Created = true
		res.After = "# Agents\n\n| Agent | Summary | Path |\n" + RosterSeparator + "\n" + res.Row + "\n"
	case err != nil:
		return nil, err
	default:
		if fi, err := dir.Stat("AGENTS.md"); err == nil {
			perm = fi.Mode().Perm()
		}
		after, changed := rosterInsert(string(data), r)
		res.After = after
		if !changed {
			return res, nil
		}
	}
	if dryRun {
		return res, nil
	}
	if err := fsx.WriteFileAtomicIn(dir, "AGENTS.md", []byte(res.After), perm); err != nil {
		return nil, err
	}
	res.Written = true
	return res, nil
}

func (r RosterRow) agentsRoot() string {
	if r.AgentsRoot == "" {
		return ".clia/agents"
	}
	return r.AgentsRoot
}

// rosterInsert returns text with r's row added and reports whether it
// changed. Lines keep their bytes (a CRLF file stays CRLF).
func rosterInsert(text string, r RosterRow) (string, bool) {
	lines := strings.SplitAfter(text, "\n")
	cell := r.pathCell()
	out := make([]string, 0, len(lines)+3)
	present, removed, sep := false, false, -1
	for _, l := range lines {
		if strings.Contains(l, cell) {
			if strings.Contains(l, rosterTransitional) {
				removed = true
				continue
			}
			present = true
		}
		if sep < 0 && strings.TrimSpace(l) == RosterSeparator {
			sep = len(out)
		}
		out = append(out, l)
	}
	if present {
		return strings.Join(out, ""), removed
	}
	eol := "\n"
	if strings.Contains(text, "\r\n") {
		eol = "\r\n"
	}
	row := r.Line() + eol
	if sep >= 0 {
		if !strings.HasSuffix(out[sep], "\n") {
			out[sep] += eol
		}
		out = append(out[:sep+1], append([]string{row}, out[sep+1:]...)...)
		return strings.Join(out, ""), true
	}
	s := strings.Join(out, "")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += eol
	}
	if s != "" {
		s += eol
	}
	return s + "| Agent | Summary | Path |" + eol + RosterSeparator + eol + row, true
}

// rosterLockName serializes writers of an AGENTS.md roster.
const rosterLockName = ".roster.lock"
