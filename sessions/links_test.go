package sessions

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// fakeReader serves batches by the source file's base name: what a Codex or
// Gemini reader gives for forks, resumes and rewinds in other files (the
// importer makes a path absolute; on Windows "/a" becomes a drive path).
type fakeReader map[string]Batch

func (fakeReader) Harness() Harness { return Codex }

func (f fakeReader) Read(_ context.Context, src Source, from Cursor) (Batch, error) {
	b := f[filepath.Base(src.Path)]
	if from.Offset > 0 {
		return Batch{Session: b.Session, Next: from}, nil
	}
	b.Next = Cursor{Offset: 1}
	return b, nil
}

func msg(key, parent, text string) Record {
	return Record{Keys: []string{key}, Parent: parent, Kind: KindMessage, Role: "user", Text: text}
}

// TestLinksAcrossFiles: a rewind segment continues its origin's tract from
// the record it names (the rest becomes a branch); a fork that copies
// nothing is spawned by reference at the record it names.
func TestLinksAcrossFiles(t *testing.T) {
	repo, _ := newRepo(t)
	ctx := context.Background()
	a := Session{Harness: Codex, ID: "A"}
	f := fakeReader{
		"a": {Session: a, Records: []Record{msg("1", "", "one"), msg("2", "1", "two"), msg("3", "2", "three")}},
		"b": {Session: Session{Harness: Codex, ID: "A", Origin: &Link{Kind: LinkRewind, Harness: Codex, Session: "A", Key: "2"}},
			Records: []Record{msg("4", "2", "four"), msg("5", "4", "five")}},
		"c": {Session: Session{Harness: Codex, ID: "C", Origin: &Link{Kind: LinkFork, Harness: Codex, Session: "A", Key: "1"}},
			Records: []Record{msg("6", "", "six")}},
	}
	im := &Importer{Repo: repo, Readers: map[Harness]Reader{Codex: f}}
	if _, err := im.Import(ctx, []Source{{Harness: Codex, Path: "/c"}, {Harness: Codex, Path: "/b"}, {Harness: Codex, Path: "/a"}}); err != nil {
		t.Fatal(err)
	}
	if got := compileText(t, repo, "codex-A", ""); got != "user: one\n\nuser: two\n\nuser: four\n\nuser: five\n" {
		t.Errorf("A compiles %q", got)
	}
	if got := compileText(t, repo, "codex-A", "rewind-3"); got != "user: one\n\nuser: two\n\nuser: three\n" {
		t.Errorf("rewind-3 compiles %q", got)
	}
	c, err := repo.Tract(ctx, "codex-C")
	if err != nil {
		t.Fatal(err)
	}
	if c.Spawn == nil || c.Spawn.Mode != tract.SpawnReference {
		t.Fatalf("C's spawn %+v", c.Spawn)
	}
	if got := compileText(t, repo, "codex-C", ""); got != "user: one\n\nuser: six\n" {
		t.Errorf("C compiles %q", got)
	}
}
