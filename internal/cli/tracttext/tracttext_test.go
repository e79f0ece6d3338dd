package tracttext

import (
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func entry(h string, parents ...string) tract.LogEntry {
	var ps []tract.Hash
	for _, p := range parents {
		ps = append(ps, tract.Hash(p))
	}
	return tract.LogEntry{Hash: tract.Hash(h), Parents: ps, Operation: tract.OpAppend, Type: tract.TypeMessage, Summary: h, Refs: []string{}}
}

func TestGraphAndDot(t *testing.T) {
	entries := []tract.LogEntry{entry("m0000000", "b0000000", "f0000000"), entry("f0000000", "a0000000"), entry("b0000000", "a0000000"), entry("a0000000")}
	entries[0].Operation, entries[0].Message = tract.OpMerge, "merge f"
	want := `* m0000000 merge: merge f
|\
| * f0000000 message: f0000000
* | b0000000 message: b0000000
|/
* a0000000 message: a0000000
`
	if got := Graph(entries); got != want {
		t.Errorf("Graph:\n%s\nwant:\n%s", got, want)
	}
	dot := Dot(entries)
	for _, s := range []string{`"m0000000" -> "f0000000" [style=dashed];`, `"m0000000" -> "b0000000";`, `[label="a0000000\nmessage: a0000000"]`} {
		if !strings.Contains(dot, s) {
			t.Errorf("Dot lacks %s:\n%s", s, dot)
		}
	}
}

// A filtered log is drawn along GraphParents: u2's parent a1 is not listed,
// so without them u1 would open a second line.
func TestGraphFollowsGraphParents(t *testing.T) {
	entries := []tract.LogEntry{entry("u2000000", "a1000000"), entry("u1000000")}
	entries[0].GraphParents = []tract.Hash{"u1000000"}
	want := "* u2000000 message: u2000000\n* u1000000 message: u1000000\n"
	if got := Graph(entries); got != want {
		t.Errorf("Graph:\n%s\nwant:\n%s", got, want)
	}
	entries[0].GraphParents = nil
	if got := Graph(entries); !strings.Contains(got, "| * u1000000") {
		t.Errorf("Graph without GraphParents draws u1 on u2's line:\n%s", got)
	}
}

func TestLogLine(t *testing.T) {
	tests := []struct {
		e    tract.LogEntry
		want string
	}{
		{tract.LogEntry{Hash: "aaaaaaaa11", Refs: []string{"HEAD -> main"}, Operation: tract.OpAppend, Type: tract.TypeMessage, Role: "user", Summary: "hi", Message: "why"},
			"aaaaaaaa (HEAD -> main) message/user: hi — why"},
		{tract.LogEntry{Hash: "bbbbbbbb22", Operation: tract.OpMerge, Message: "merge-from kid", Type: tract.TypeMessage, Summary: "x"},
			"bbbbbbbb merge: merge-from kid"},
		{tract.LogEntry{Hash: "cccccccc33", Operation: tract.OpEdit, EditTarget: "dddddddd44", Type: tract.TypeInstruction, Role: "system", Summary: "be brief"},
			"cccccccc edit dddddddd instruction: be brief"},
		{tract.LogEntry{Hash: "eeeeeeee55", Operation: tract.OpCompress, EditTarget: "ffffffff66", Type: tract.TypeMessage, Role: "assistant", Summary: "sum"},
			"eeeeeeee compress ..ffffffff message/assistant: sum"},
	}
	for _, tt := range tests {
		if got := LogLine(tt.e); got != tt.want {
			t.Errorf("LogLine = %q, want %q", got, tt.want)
		}
	}
}

func TestSpawnTree(t *testing.T) {
	spawn := func(parent string, mode tract.SpawnMode, purpose string) *tract.SpawnPointer {
		return &tract.SpawnPointer{Parent: parent, Mode: mode, Purpose: purpose}
	}
	list := []tract.TractInfo{
		{Tract: tract.Tract{ID: "1", Name: "main"}},
		{Tract: tract.Tract{ID: "2", Name: "b", Spawn: spawn("1", tract.SpawnReference, "do b")}, Parent: "main"},
		{Tract: tract.Tract{ID: "3", Name: "c", Spawn: spawn("2", tract.SpawnSnapshot, "do c")}, Parent: "b"},
		{Tract: tract.Tract{ID: "4", Name: "a", Spawn: spawn("1", tract.SpawnEmpty, "do a")}, Parent: "main"},
		{Tract: tract.Tract{ID: "5", Name: "solo"}},
		{Tract: tract.Tract{ID: "6", Name: "orphan", Spawn: spawn("9", tract.SpawnReference, "left")}, Parent: "gone (removed)"},
	}
	want := "main\n├── a [empty] do a\n└── b [reference] do b\n    └── c [snapshot] do c\norphan [reference] left (parent gone (removed))\nsolo\n"
	if got := SpawnTree(list); got != want {
		t.Errorf("SpawnTree:\n%s\nwant:\n%s", got, want)
	}
}
