package triad

import (
	"github.com/agentlineage/lineage/internal/platformtest"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestPrefixAndMatch(t *testing.T) {
	if p := Prefix("root@todo3.clia.agent.triad.json"); p != "root@todo3" {
		t.Errorf("Prefix = %q", p)
	}
	tests := []struct {
		name    string
		kind    DocKind
		current bool
		ok      bool
	}{
		{"tau@mono.agent.triad.json", Agent, true, true},
		{"OmniBroker.ios-engineer.agenda.json", Agenda, false, true},
		{"x.agency.triad.json.schema-0.4.0.bak", "", false, false},
		{"x.entries.agency.triad.jsonl", "", false, false},
		{"x.persona.agent.triad.md", "", false, false},
		{".agent.triad.json", "", false, false},
		{"agent.json", "", false, false},
	}
	for _, tt := range tests {
		k, cur, ok := Match(tt.name)
		if k != tt.kind || cur != tt.current || ok != tt.ok {
			t.Errorf("Match(%q) = %q %v %v", tt.name, k, cur, ok)
		}
	}
}

func TestSelectNames(t *testing.T) {
	sel := SelectNames([]string{
		"z.agent.triad.json", "b.agent.json", "a.agent.triad.json",
		"a.agenda.json", "c.agenda.json",
		"a.agency.triad.json.bak", "notes.md",
	})
	want := map[DocKind]string{Agent: "a.agent.triad.json", Agenda: "a.agenda.json"}
	if !reflect.DeepEqual(sel.Files, want) {
		t.Errorf("Files = %v, want %v", sel.Files, want)
	}
	wantIgn := map[DocKind][]string{Agent: {"z.agent.triad.json", "b.agent.json"}, Agenda: {"c.agenda.json"}}
	if !reflect.DeepEqual(sel.Ignored, wantIgn) {
		t.Errorf("Ignored = %v, want %v", sel.Ignored, wantIgn)
	}
}

func TestSelectDirIgnoresSubfoldersAndFollowsFileSymlinks(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "journal.agent.triad.json"), 0o755)
	os.WriteFile(filepath.Join(dir, "real.json"), []byte(`{}`), 0o644)
	platformtest.Symlink(t, filepath.Join(dir, "real.json"), filepath.Join(dir, "s.agency.triad.json"))
	platformtest.Symlink(t, filepath.Join(dir, "nowhere"), filepath.Join(dir, "d.agent.triad.json"))
	sel, err := SelectDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sel.Files, map[DocKind]string{Agency: "s.agency.triad.json"}) {
		t.Errorf("Files = %v", sel.Files)
	}
}
