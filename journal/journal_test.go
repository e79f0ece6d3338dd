package journal

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentlineage/lineage/internal/platformtest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/triad"
)

func tempRoot(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if content == "<dir>" {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func fixedClock(s string) func() time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return func() time.Time { return t }
}

func readDoc(t testing.TB, path string) *triad.Value {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := triad.Decode(path, b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestResolveTarget(t *testing.T) {
	root := tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>", "libs/x/.git": "gitdir: y", "libs/x/src/deep": "<dir>", "norepo": "<dir>"})
	p := filepath.Join(root, "libs/x/src/deep")
	tests := []struct {
		scope, root, source string
	}{
		{"", filepath.Join(root, "libs/x"), "libs/x"},
		{ScopeSubmodule, filepath.Join(root, "libs/x"), "libs/x"},
		{ScopeWorkspace, root, "."},
		{ScopeLocal, p, "libs/x/src/deep"},
	}
	for _, tt := range tests {
		tg, err := ResolveTarget(agents.Options{Path: p, AgentsRoots: []string{".wrkstrm/clia/agents"}}, "s", tt.scope, "")
		if err != nil {
			t.Fatal(err)
		}
		// --agents-root adds to .clia/agents, the first root: with no agency
		// document yet, the write goes there.
		if tg.Root != tt.root || tg.Source != tt.source || tg.Dir != filepath.Join(tt.root, ".clia/agents/s") {
			t.Errorf("scope %q: %+v", tt.scope, tg)
		}
	}
	// An existing agency document under an added root is written to.
	write(t, root, map[string]string{"libs/x/.wrkstrm/clia/agents/s/s@x.agency.triad.json": `{"entries":[]}`})
	if tg, err := ResolveTarget(agents.Options{Path: p, AgentsRoots: []string{".wrkstrm/clia/agents"}}, "s", ScopeSubmodule, ""); err != nil || tg.Dir != filepath.Join(root, "libs/x/.wrkstrm/clia/agents/s") {
		t.Errorf("existing agency under an added root: %+v, %v", tg, err)
	}
	if _, err := ResolveTarget(agents.Options{Path: filepath.Join(root, "missing")}, "s", ScopeLocal, ""); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("missing path: %v", err)
	}
	if _, err := ResolveTarget(agents.Options{Path: p}, "s", "galaxy", ""); err == nil {
		t.Error("unknown scope accepted")
	}
	outside := tempRoot(t)
	_, err := ResolveTarget(agents.Options{Path: outside}, "s", "", "")
	if !errors.Is(err, ErrNoWriteRoot) || !strings.Contains(err.Error(), "--agents-dir") {
		t.Errorf("outside a repository: %v", err)
	}
	tg, err := ResolveTarget(agents.Options{Path: outside}, "s", "", "agents")
	if err != nil || tg.Dir != filepath.Join(outside, "agents/s") {
		t.Errorf("--agents-dir fallback: %+v %v", tg, err)
	}
}

func TestAppendCreatesDocumentAndIsIdempotent(t *testing.T) {
	root := tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>", "app/.git": "gitdir: x",
		".clia/agents/tau/tau@ws.agent.triad.json": `{"schemaVersion":"0.4.0","extensions":{"journalSignature":"-TAU"}}`})
	opts := Options{Agents: agents.Options{Path: filepath.Join(root, "app")}, Now: fixedClock("2026-11-22T10:00:00Z")}
	e := Entry{Slug: "tau", Note: "first line\nmore", Tags: []string{"a", " ", "a", "b"}}
	res, err := Append(context.Background(), opts, e)
	if err != nil {
		t.Fatal(err)
	}
	wantFile := filepath.Join(root, "app/.clia/agents/tau/tau@app.agency.triad.json")
	if res.File != wantFile || !res.Written {
		t.Fatalf("result %+v", res)
	}
	doc := readDoc(t, wantFile)
	got := string(triad.Encode(doc, triad.EncodeOptions{Compact: true}))
	id := res.Entry.Str("id")
	want := `{"schemaVersion":"0.4.0","slug":"tau","title":"Agency log: tau","updated":"2026-11-22T10:00:00Z","entries":[{"id":"` + id +
		`","timestamp":"2026-11-22T10:00:00Z","kind":"journal","title":"first line","summary":"first line\nmore","tags":["a","b"],"signature":"-TAU","source":"app",` +
		`"contributions":[{"by":"tau","types":[{"type":"journal","weight":1,"evidence":"first line\nmore"}]}]}]}`
	if got != want {
		t.Errorf("document\n%s\nwant\n%s", got, want)
	}
	body := res.Entry.Clone()
	body.Delete("id")
	if sum, _ := contentID(body); sum != id || len(id) != 64 {
		t.Errorf("id %s is not the hash of the entry without id (%s)", id, sum)
	}
	before, _ := os.ReadFile(wantFile)
	res, err = Append(context.Background(), opts, e)
	if err != nil || res.Written {
		t.Fatalf("second write: %+v %v", res, err)
	}
	after, _ := os.ReadFile(wantFile)
	if string(before) != string(after) {
		t.Error("an idempotent write changed the file")
	}
	res, _ = Append(context.Background(), opts, Entry{Slug: "tau", Note: "x", ID: "custom", Signature: "-ME"})
	if res.Entry.Str("id") != "custom" || res.Entry.Str("signature") != "-ME" {
		t.Errorf("--id/--signature ignored: %s", triad.Encode(res.Entry, triad.EncodeOptions{Compact: true}))
	}
}

func TestAppendInsertionOrderAndDirs(t *testing.T) {
	tests := []struct {
		name, entries string
		first         bool
	}{
		{"newest first", `[{"timestamp":"2026-02-01T00:00:00Z"},{"timestamp":"2026-01-01T00:00:00Z"}]`, true},
		{"oldest first", `[{"timestamp":"2026-01-01T00:00:00Z"},{"timestamp":"2026-02-01T00:00:00Z"}]`, false},
		{"no timestamps", `[{"title":"a"},{"title":"b"}]`, false},
		{"empty", `[]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tempRoot(t)
			file := ".clia/agents/s/Repo@s.agency.json"
			write(t, root, map[string]string{".git": "<dir>", file: `{"entries":` + tt.entries + `,"extensions":{"x-dirsTouched":["a"],"keep":1},"z":1.50}`})
			opts := Options{Agents: agents.Options{Path: root}, Now: fixedClock("2026-03-01T00:00:00Z")}
			res, err := Append(context.Background(), opts, Entry{Slug: "s", Note: "n", DirsTouched: []string{"b", "a"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.File != filepath.Join(root, file) {
				t.Errorf("wrote %s, want the existing legacy document", res.File)
			}
			doc := readDoc(t, res.File)
			items := doc.Get("entries").Items
			pos := len(items) - 1
			if tt.first {
				pos = 0
			}
			if items[pos].Str("id") != res.Entry.Str("id") {
				t.Errorf("new entry not at position %d", pos)
			}
			ext := string(triad.Encode(doc.Get("extensions"), triad.EncodeOptions{Compact: true}))
			if ext != `{"x-dirsTouched":["a","b"],"keep":1}` || doc.Get("z").Text != "1.50" || doc.Str("updated") != "2026-03-01T00:00:00Z" {
				t.Errorf("document after write: %s", triad.Encode(doc, triad.EncodeOptions{Compact: true}))
			}
		})
	}
}

func TestAppendRefusesSymlinkEscapes(t *testing.T) {
	root := tempRoot(t)
	outside := tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>"})
	platformtest.Symlink(t, outside, filepath.Join(root, ".clia"))
	_, err := Append(context.Background(), Options{Agents: agents.Options{Path: root}, Now: fixedClock("2026-01-01T00:00:00Z")}, Entry{Slug: "s", Note: "n", Signature: "-x"})
	if err == nil || !strings.Contains(err.Error(), "outside the write root") {
		t.Fatalf("err = %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("wrote outside the write root: %v", ents)
	}
	// A symlinked agency document pointing elsewhere is refused too.
	root2 := tempRoot(t)
	write(t, root2, map[string]string{".git": "<dir>", ".clia/agents/s": "<dir>"})
	write(t, outside, map[string]string{"a.json": `{"entries":[]}`})
	platformtest.Symlink(t, filepath.Join(outside, "a.json"), filepath.Join(root2, ".clia/agents/s/s.agency.triad.json"))
	_, err = Append(context.Background(), Options{Agents: agents.Options{Path: root2}}, Entry{Slug: "s", Note: "n", Signature: "-x"})
	if err == nil || !strings.Contains(err.Error(), "refusing to write") {
		t.Fatalf("symlinked document: err = %v", err)
	}
}

func TestAppendInvalidDocumentWritesNothing(t *testing.T) {
	root := tempRoot(t)
	bad := "{\n  \"entries\": [\n"
	write(t, root, map[string]string{".git": "<dir>", ".clia/agents/s/s.agency.triad.json": bad})
	_, err := Append(context.Background(), Options{Agents: agents.Options{Path: root}}, Entry{Slug: "s", Note: "n", Signature: "-x"})
	if err == nil || !strings.Contains(err.Error(), "line 3, column 1") || !strings.Contains(err.Error(), "nothing written") {
		t.Fatalf("err = %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(root, ".clia/agents/s/s.agency.triad.json"))
	if string(b) != bad {
		t.Error("invalid document was changed")
	}
	_, err = Append(context.Background(), Options{Agents: agents.Options{Path: tempRoot(t)}}, Entry{Slug: "s", Note: "n", Signature: "-x"})
	if !errors.Is(err, ErrNoWriteRoot) {
		t.Errorf("outside a repository: %v", err)
	}
}

// Every naming scheme of the corpus: the write lands in the existing agency
// document, which keeps every other key and every earlier entry.
func TestAppendIntoCorpusCopies(t *testing.T) {
	if testing.Short() {
		t.Skip("appends into copies of every corpus root; the -short passes (linux/386, Windows) leave it to the native run")
	}
	root := corpusOrSkip(t)
	// Every agents root of the corpus, including the identity folder
	// (private/universal/identity holds <slug>@<op>.substrate.* triads) and
	// the sample and template triads shipped as tool resources.
	roots := []string{".clia/agents", ".wrkstrm/clia/agents", "private/.wrkstrm/agents", "private/universal",
		"sources/core/clia-agent-core-cli-commands/resources/templates",
		"sources/core/clia-agent-core-cli-commands/Resources/templates",
		"sources/core/clia-agent-core-cli-commands/resources/clia/agent"}
	schemes := map[string]bool{}
	n := 0
	for _, folder := range folders(t, root) {
		for _, ar := range roots {
			ws := copyFolder(t, filepath.Join(root, folder))
			os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
			slugs, _ := os.ReadDir(filepath.Join(ws, ar))
			for _, s := range slugs {
				dir := filepath.Join(ws, ar, s.Name())
				sel, _ := triad.SelectDir(dir)
				name, ok := sel.Files[triad.Agency]
				if !ok {
					continue
				}
				before := readDoc(t, filepath.Join(dir, name))
				opts := Options{Agents: agents.Options{Path: ws, AgentsRoots: []string{ar}}, Now: fixedClock("2026-11-22T10:00:00Z")}
				res, err := Append(context.Background(), opts, Entry{Slug: s.Name(), Note: "corpus write " + fmt.Sprint(n)})
				if err != nil {
					t.Errorf("%s %s: %v", folder, s.Name(), err)
					continue
				}
				if res.File != filepath.Join(dir, name) {
					t.Errorf("%s: wrote %s, want %s", folder, res.File, name)
				}
				assertOnlyAppended(t, before, readDoc(t, res.File), res.Entry)
				schemes[scheme(name)] = true
				n++
			}
		}
	}
	if n < 15 {
		t.Errorf("wrote into %d corpus agency documents; expected more", n)
	}
	for _, want := range []string{"slug@tag.agency.triad.json", "slug@tag.x.agency.triad.json", "Repo.slug.agency.json", "slug@tag.agency.json"} {
		if !schemes[want] {
			t.Errorf("naming scheme %s not exercised (got %v)", want, schemes)
		}
	}
}

// scheme abstracts a file name into its naming scheme.
func scheme(name string) string {
	ext := ".agency.triad.json"
	if !strings.HasSuffix(name, ext) {
		ext = ".agency.json"
	}
	stem := strings.TrimSuffix(name, ext)
	at := strings.Contains(stem, "@")
	dots := strings.Count(stem, ".")
	switch {
	case at && dots == 0:
		return "slug@tag" + ext
	case at:
		return "slug@tag.x" + ext
	case dots > 0:
		return "Repo.slug" + ext
	}
	return "slug" + ext
}

// assertOnlyAppended: after equals before plus the entry, a new "updated"
// and nothing else.
func assertOnlyAppended(t *testing.T, before, after, entry *triad.Value) {
	t.Helper()
	var kept []*triad.Value
	for _, it := range after.Get("entries").Items {
		if it.Str("id") != entry.Str("id") || it.Str("summary") != entry.Str("summary") {
			kept = append(kept, it)
		}
	}
	old := before.Get("entries")
	if old == nil || len(kept) != len(old.Items) {
		t.Fatalf("entries: %d kept, want %d", len(kept), len(old.Items))
	}
	for i := range kept {
		if !triad.Equal(kept[i], old.Items[i]) {
			t.Errorf("entry %d changed", i)
		}
	}
	for _, m := range before.Members {
		if m.Key == "entries" || m.Key == "updated" {
			continue
		}
		if !triad.Equal(m.Value, after.Get(m.Key)) {
			t.Errorf("key %q changed", m.Key)
		}
	}
}
