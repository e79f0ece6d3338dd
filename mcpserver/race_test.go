//go:build unix

package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/platformtest"
	"github.com/agentlineage/lineage/internal/swaptest"
)

// raceCalls is how many calls each race test makes while the swap loop
// runs: a few seconds in all.
const raceCalls = 150

// callRaw calls a tool on a server process that must stay up: a transport
// error (the server died, as a panic would make it) fails the test.
func callRaw(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (text string, isError bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: the server is gone: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	return contentText(res) + string(b), res.IsError
}

// An AGENTS.md inside the root swapped, in a loop, with a symbolic link
// to a secret outside (issue 31: the secret reached the client in 7 of 60
// sessions, the server panicked in 19): no call ever carries a byte of it,
// and the server stays up.
func TestInstructionsUnderSymlinkSwap(t *testing.T) {
	dir, outside := confinedProject(t)
	agentsFile := filepath.Join(dir, "sub", "AGENTS.md")
	decoy := filepath.Join(dir, "sub", "decoy")
	platformtest.Symlink(t, filepath.Join(outside, "secret.txt"), decoy)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	sw := swaptest.Start(t, agentsFile, decoy, 30*time.Second)
	loaded := 0
	for i := range raceCalls {
		tool, args := "instructions_initial", map[string]any{"cwd": "sub"}
		if i%2 == 1 {
			tool, args = "instructions_resolve", map[string]any{"paths": []string{"sub/deep"}}
		}
		text, _ := callRaw(t, cs, tool, args)
		if strings.Contains(text, "SECRET") {
			t.Fatalf("call %d (%s) read the outside file: %s", i, tool, text)
		}
		if strings.Contains(text, "sub rules") {
			loaded++
		}
	}
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: InitialResourceURI + "?cwd=sub"})
	if err != nil || strings.Contains(res.Contents[0].Text, "SECRET") {
		t.Fatalf("resource: %v", err)
	}
	sw.Stop()
	t.Logf("%d swaps; sub/AGENTS.md loaded in %d of %d calls", sw.Swaps(), loaded, raceCalls)
}

// An agent's triad document swapped with a link to a document outside:
// the merged profile never carries the outside guardrail.
func TestAgentsProfileUnderSymlinkSwap(t *testing.T) {
	dir, outside := confinedProject(t)
	writeFile(t, filepath.Join(outside, "evil.json"), `{"schemaVersion":"0.4.0","slug":"tau","guardrails":["SECRET rule"]}`+"\n")
	doc := filepath.Join(dir, ".clia", "agents", "tau", "tau@ws.agent.triad.json")
	decoy := filepath.Join(dir, ".clia", "agents", "decoy.json")
	platformtest.Symlink(t, filepath.Join(outside, "evil.json"), decoy)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	sw := swaptest.Start(t, doc, decoy, 30*time.Second)
	for i := range raceCalls {
		if text, _ := callRaw(t, cs, "agents_profile", map[string]any{"slug": "tau"}); strings.Contains(text, "SECRET") {
			t.Fatalf("call %d read the outside document: %s", i, text)
		}
	}
	sw.Stop()
	t.Logf("%d swaps", sw.Swaps())
}

// The agent's context directory swapped with a link to a directory
// outside while the client journals (issue 31: entries, lock and temporary
// file landed outside, acknowledged entries were lost): the outside tree
// never changes and every acknowledged entry is in the agency log.
func TestJournalUnderSymlinkSwap(t *testing.T) {
	dir, outside := confinedProject(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	var first map[string]any
	call(t, cs, "agents_journal", map[string]any{"slug": "tau", "note": "first"}, &first)
	file, _ := first["file"].(string)
	ctxDir := filepath.Dir(file)
	decoy := filepath.Join(filepath.Dir(ctxDir), "decoy")
	platformtest.Symlink(t, outside, decoy)
	before := swaptest.Tree(t, outside)
	sw := swaptest.Start(t, ctxDir, decoy, 30*time.Second)
	var acked []string
	for i := range raceCalls {
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "agents_journal",
			Arguments: map[string]any{"slug": "tau", "note": fmt.Sprintf("note %d", i)}})
		if err != nil {
			t.Fatalf("call %d: the server is gone: %v", i, err)
		}
		if r.IsError {
			continue
		}
		var res struct {
			Written bool `json:"written"`
			Entry   struct {
				ID string `json:"id"`
			} `json:"entry"`
		}
		if err := remarshal(r.StructuredContent, &res); err != nil {
			t.Fatal(err)
		}
		if res.Written {
			acked = append(acked, res.Entry.ID)
		}
	}
	sw.Stop()
	t.Logf("%d swaps, %d acknowledged", sw.Swaps(), len(acked))
	if diff := cmp.Diff(before, swaptest.Tree(t, outside)); diff != "" {
		t.Errorf("the outside directory changed (-before +after):\n%s", diff)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range acked {
		if !strings.Contains(string(data), `"`+id+`"`) {
			t.Errorf("acknowledged entry %s is lost", id)
		}
	}
}

// The directory of an instructions_resume state file swapped with a link
// to a directory outside holding a state file of the same name: resuming
// (which rewrites the state, its cwd alternating) never writes there.
func TestResumeUnderSymlinkSwap(t *testing.T) {
	dir, outside := confinedProject(t)
	stateDir := filepath.Join(dir, "state")
	if err := os.Mkdir(stateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{stateDir, outside} {
		opts := instructions.Options{Config: instructions.DefaultConfig(), Cwd: filepath.Join(dir, "sub")}
		if _, _, err := instructions.StartSession(context.Background(), filepath.Join(d, "s.json"), opts); err != nil {
			t.Fatal(err)
		}
	}
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	decoy := filepath.Join(dir, "decoy")
	platformtest.Symlink(t, outside, decoy)
	before := swaptest.Tree(t, outside)
	sw := swaptest.Start(t, stateDir, decoy, 30*time.Second)
	resumed := 0
	for i := range raceCalls {
		cwd := "sub"
		if i%2 == 1 {
			cwd = "sub/deep"
		}
		if _, isErr := callRaw(t, cs, "instructions_resume", map[string]any{"state": "state/s.json", "cwd": cwd}); !isErr {
			resumed++
		}
	}
	sw.Stop()
	t.Logf("%d swaps, %d resumed", sw.Swaps(), resumed)
	if diff := cmp.Diff(before, swaptest.Tree(t, outside)); diff != "" {
		t.Errorf("the outside directory changed (-before +after):\n%s", diff)
	}
}
