package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	for name, h := range map[string]struct{ readOnly, destructive, idempotent bool }{
		"tract_gc":           {false, true, true},
		"tract_verify":       {true, false, true},
		"tract_blame":        {true, false, true},
		"tract_import":       {false, false, false},
		"tract_edit_history": {true, false, true},
	} {
		toolHintsWanted[name] = h
	}
}

// TestTractGCAndVerify: tract_gc removes what a reset abandoned (a dry run
// first lists it, a second run removes nothing), tract_verify reports a
// sound store, and a bad retention is an error naming it.
func TestTractGCAndVerify(t *testing.T) {
	path, repo := newStore(t)
	ctx := context.Background()
	a := commitText(t, repo, "main", "user", "keep me")
	b := commitText(t, repo, "main", "assistant", "abandon me")
	if _, err := repo.Reset(ctx, "main", string(a)); err != nil {
		t.Fatal(err)
	}
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path}, nil)

	var rep tract.GCReport
	call(t, cs, "tract_gc", map[string]any{"dryRun": true}, &rep)
	if len(rep.Removed) != 0 || rep.Scanned != 2 {
		t.Fatalf("gc within the default retention = %+v", rep)
	}
	call(t, cs, "tract_gc", map[string]any{"retention": "0s", "dryRun": true}, &rep)
	if !rep.DryRun || !slices.Equal(rep.Removed, []tract.Hash{b}) {
		t.Fatalf("gc dry run = %+v", rep)
	}
	call(t, cs, "tract_gc", map[string]any{"retention": "0s"}, &rep)
	if rep.DryRun || !slices.Equal(rep.Removed, []tract.Hash{b}) || rep.Blobs != 1 {
		t.Fatalf("gc = %+v", rep)
	}
	call(t, cs, "tract_gc", map[string]any{"retention": "0s"}, &rep)
	if len(rep.Removed) != 0 {
		t.Fatalf("second gc = %+v", rep)
	}
	if msg := callError(t, cs, "tract_gc", map[string]any{"retention": "soon"}); !strings.Contains(msg, `retention: invalid retention "soon"`) {
		t.Fatalf("bad retention: %s", msg)
	}

	var v VerifyOutput
	call(t, cs, "tract_verify", nil, &v)
	if !v.OK || v.Commits != 1 || v.Blobs != 1 || len(v.Damage) != 0 {
		t.Fatalf("verify = %+v", v)
	}
}

// TestTractBlamePages: tract_blame maps every compiled message to its
// commit and author, in pages under a small result limit that together
// are the whole blame; a cursor of a changed context is refused.
func TestTractBlamePages(t *testing.T) {
	path, repo := newStore(t)
	var want []tract.Hash
	for i := range 30 {
		want = append(want, commitText(t, repo, "main", "user", strings.Repeat("word ", 20)+string(rune('a'+i%26))))
	}
	cs := connectStdio(t, serverProc{cwd: t.TempDir(), store: path, maxTokens: 1000}, nil)
	var got []tract.Hash
	cursor, pages := "", 0
	for {
		args := map[string]any{}
		if cursor != "" {
			args["cursor"] = cursor
		}
		var page BlameOutput
		call(t, cs, "tract_blame", args, &page)
		pages++
		for _, e := range page.Entries {
			if e.Tract != "main" || !slices.Equal(e.SpawnPath, []string{"main"}) || e.Index != len(got) {
				t.Fatalf("entry = %+v", e)
			}
			got = append(got, e.Commit)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if pages < 2 || !slices.Equal(got, want) {
		t.Fatalf("%d pages, blame = %v, want %v", pages, got, want)
	}
	var first BlameOutput
	call(t, cs, "tract_blame", nil, &first)
	commitText(t, repo, "main", "user", "one more")
	if msg := callError(t, cs, "tract_blame", map[string]any{"cursor": first.NextCursor}); !strings.Contains(msg, "cursor") {
		t.Fatalf("stale cursor: %s", msg)
	}
	var one BlameOutput
	call(t, cs, "tract_blame", map[string]any{"at": string(want[0])}, &one)
	if len(one.Entries) != 1 || one.Entries[0].Commit != want[0] {
		t.Fatalf("blame at the first commit = %+v", one)
	}
}

// TestTractImportConfined: tract_import appends inline messages or a file
// inside the roots in one transaction (a bad message writes nothing),
// reports the pressure, refuses a path outside the roots, and adds a
// lineage export checking every hash.
func TestTractImportConfined(t *testing.T) {
	path, repo := newStore(t)
	ctx := context.Background()
	cwd := t.TempDir()
	cs := connectStdio(t, serverProc{cwd: cwd, store: path}, nil)

	var out ImportOutput
	call(t, cs, "tract_import", map[string]any{"messages": []any{
		map[string]any{"role": "system", "content": "Be brief."},
		map[string]any{"role": "user", "content": "hello"},
	}}, &out)
	if out.Format != "openai" || out.Count != 2 || out.Head == "" || out.Pressure == nil || out.Pressure.Tokens <= 0 {
		t.Fatalf("import = %+v", out)
	}
	if got := logTexts(t, repo, "main"); !slices.Equal(got, []string{"hello", "Be brief."}) {
		t.Fatalf("log = %v", got)
	}
	msg := callError(t, cs, "tract_import", map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": "fine"},
		map[string]any{"role": "wizard", "content": "bad"},
	}})
	if !strings.Contains(msg, "message 2") {
		t.Fatalf("bad message: %s", msg)
	}
	if got := logTexts(t, repo, "main"); len(got) != 2 {
		t.Fatalf("a refused import wrote %v", got)
	}

	if err := os.WriteFile(filepath.Join(cwd, "more.jsonl"), []byte(`{"role":"assistant","content":"hi"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "tract_import", map[string]any{"format": "jsonl", "path": "more.jsonl"}, &out)
	if out.Count != 1 || logTexts(t, repo, "main")[0] != "hi" {
		t.Fatalf("import of a file = %+v", out)
	}
	outside := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(outside, []byte(`[{"role":"user","content":"leak"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg := callError(t, cs, "tract_import", map[string]any{"path": outside}); !strings.Contains(msg, "outside") {
		t.Fatalf("import outside the roots: %s", msg)
	}
	if msg := callError(t, cs, "tract_import", map[string]any{"path": "more.jsonl", "messages": []any{}}); !strings.Contains(msg, "not both") {
		t.Fatalf("path and messages: %s", msg)
	}

	// A lineage export of a tract the other store does not have.
	if _, err := repo.NewTract(ctx, "notes"); err != nil {
		t.Fatal(err)
	}
	commitText(t, repo, "notes", "user", "a note")
	var ex ExportOutput
	call(t, cs, "tract_export", map[string]any{"tract": "notes", "path": "notes.jsonl"}, &ex)
	path2, repo2 := newStore(t)
	cs2 := connectStdio(t, serverProc{cwd: cwd, store: path2}, nil)
	call(t, cs2, "tract_import", map[string]any{"format": "lineage", "path": "notes.jsonl"}, &out)
	if out.Export == nil || out.Export.Tracts != 1 || out.Export.Commits != 1 {
		t.Fatalf("import of an export = %+v", out)
	}
	if got := logTexts(t, repo2, "notes"); !slices.Equal(got, []string{"a note"}) {
		t.Fatalf("imported notes = %v", got)
	}
	if msg := callError(t, cs2, "tract_import", map[string]any{"format": "lineage", "path": "notes.jsonl"}); !strings.Contains(msg, "exists") {
		t.Fatalf("second import of an export: %s", msg)
	}
}
