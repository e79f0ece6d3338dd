package journal

import (
	"context"
	"github.com/agentlineage/lineage/internal/platformtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
)

// A journal lock that is a symlink would create or lock a file outside the
// repository: it is refused, and nothing is written anywhere.
func TestAppendRefusesSymlinkedLock(t *testing.T) {
	root, outside := tempRoot(t), tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>", ".clia/agents/s": "<dir>"})
	lock := filepath.Join(root, ".clia/agents/s", lockName)
	platformtest.Symlink(t, filepath.Join(outside, "X"), lock)
	_, err := Append(context.Background(), Options{Agents: agents.Options{Path: root}}, Entry{Slug: "s", Note: "n", Signature: "-x"})
	if err == nil || !strings.Contains(err.Error(), "refusing to write: "+lock+" is a symbolic link, not a regular file") {
		t.Fatalf("err = %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("created outside the repository: %v", ents)
	}
	if ents, _ := os.ReadDir(filepath.Dir(lock)); len(ents) != 1 {
		t.Errorf("the context holds %v, want only the refused lock", ents)
	}
}

// The temporary file of a writer killed before its rename is removed by
// the next write; other files are left alone, and the write leaves no lock
// file behind.
func TestAppendRemovesKilledWritersTemps(t *testing.T) {
	root := tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>", ".clia/agents/s/s@x.agency.triad.json": `{"entries":[]}`,
		".clia/agents/s/.s@x.agency.triad.json.tmp-12345": `{"torn`, ".clia/agents/s/notes.md": "keep"})
	res, err := Append(context.Background(), Options{Agents: agents.Options{Path: root}, Now: fixedClock("2026-01-01T00:00:00Z")}, Entry{Slug: "s", Note: "n", Signature: "-x"})
	if err != nil || !res.Written {
		t.Fatalf("append: %+v, %v", res, err)
	}
	ents, _ := os.ReadDir(filepath.Join(root, ".clia/agents/s"))
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "notes.md s@x.agency.triad.json" {
		t.Errorf("context holds %s", got)
	}
}

// A roster (AGENTS.md) that is a symlink leading outside is refused before
// anything is created: no half-commissioned agent is left behind.
func TestCommissionChecksTheRosterFirst(t *testing.T) {
	root, outside := tempRoot(t), tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>"})
	write(t, outside, map[string]string{"AGENTS.md": "# elsewhere\n"})
	platformtest.Symlink(t, filepath.Join(outside, "AGENTS.md"), filepath.Join(root, "AGENTS.md"))
	_, err := Commissioned(context.Background(), Options{Agents: agents.Options{Path: root}}, Commission{Slug: "new-agent", Title: "New"})
	if err == nil || !strings.Contains(err.Error(), "roster: refusing to write") || !strings.Contains(err.Error(), "nothing created") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root, ".clia")); err == nil {
		t.Error("the agent was created before the roster was refused")
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "AGENTS.md")); string(data) != "# elsewhere\n" {
		t.Errorf("outside file changed: %q", data)
	}
}
