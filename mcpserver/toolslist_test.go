package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/internal/canon"
	"github.com/agentlineage/lineage/tract"
)

var updateToolsList = flag.Bool("update", false, "rewrite testdata/tools_list.golden from the server's tools/list")

const toolsListGolden = "testdata/tools_list.golden"

// TestToolsListUnchanged pins the tools/list answer a client sees (every
// tool's name, title, description, annotations and input and output
// schemas): moving code between files or packages must not change it. The
// golden file holds the SHA-256 of the whole list's canonical JSON and of
// each tool's, so a change names the tools it touched. A deliberate change
// rewrites it with `go test ./mcpserver -run TestToolsListUnchanged -update`.
func TestToolsListUnchanged(t *testing.T) {
	dir := project(t)
	srv, err := New(Options{
		Cwd:      dir,
		StateDir: t.TempDir(),
		OpenTract: func(context.Context) (*tract.Repo, error) {
			return nil, fmt.Errorf("tools/list must not open the store")
		},
		OpenSessions: func(context.Context) (*tract.Repo, func(), error) {
			return nil, nil, fmt.Errorf("tools/list must not open the sessions store")
		},
		OpenSessionsWrite: func(context.Context) (*tract.Repo, func(), error) {
			return nil, nil, fmt.Errorf("tools/list must not open the sessions store")
		},
		HandoffDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	rc := rawConnect(t, srv)
	if err := rc.conn.SetDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	// The answer is longer than rawClient.call's buffer: read it whole.
	if _, err := rc.conn.Write([]byte(`{"jsonrpc":"2.0","id":"list","method":"tools/list","params":{}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	var line []byte
	for !bytes.Contains(line[:min(len(line), 64)], []byte(`"id":"list",`)) {
		if line, err = rc.r.ReadBytes('\n'); err != nil {
			t.Fatal(err)
		}
	}
	var resp struct {
		Result struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		t.Fatalf("tools/list answer %q: %v", line, err)
	}
	if resp.Result.NextCursor != "" || len(resp.Result.Tools) < 19 {
		t.Fatalf("tools/list gave %d tools, next cursor %q: want the whole list on one page", len(resp.Result.Tools), resp.Result.NextCursor)
	}
	got := toolsListHashes(t, resp.Result.Tools)
	if *updateToolsList {
		if err := os.WriteFile(filepath.FromSlash(toolsListGolden), []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(filepath.FromSlash(toolsListGolden))
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("tools/list changed; lines that differ (- golden, + now):\n%s", lineDiff(string(want), got))
	}
}

// toolsListHashes renders the golden text: the whole list's hash first,
// then one line per tool in the server's order.
func toolsListHashes(t *testing.T, tools []json.RawMessage) string {
	t.Helper()
	var all []byte
	var lines []string
	for _, raw := range tools {
		c, err := canon.Canonicalize(raw)
		if err != nil {
			t.Fatal(err)
		}
		var named struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(c, &named); err != nil {
			t.Fatal(err)
		}
		all = append(append(all, c...), '\n')
		lines = append(lines, sum(c)+"  "+named.Name)
	}
	return sum(all) + "  tools/list\n" + strings.Join(lines, "\n") + "\n"
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// lineDiff lists the lines only one of two texts has.
func lineDiff(want, got string) string {
	in := func(text string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(text, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
