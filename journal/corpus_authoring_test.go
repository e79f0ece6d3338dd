package journal

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/agentstest"
	"github.com/agentlineage/lineage/triad"
)

func corpusRoot(t testing.TB) string { return corpusOrSkip(t) }

// snapshot maps every regular file under root to its bytes; a lock file
// left behind shows as an added file.
func snapshot(t testing.TB, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil {
			out[p] = b
		}
		return nil
	})
	return out
}

// changedFiles lists the files added, removed or changed between two
// snapshots, sorted.
func changedFiles(a, b map[string][]byte) []string {
	var out []string
	for p, x := range a {
		if y, ok := b[p]; !ok || !bytes.Equal(x, y) {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func diffSnapshots(a, b map[string][]byte) string { return strings.Join(changedFiles(a, b), ", ") }

// orderFree is v with every array's items sorted by their canonical JSON:
// two documents that differ only in array order have equal orderFree forms.
func orderFree(v *triad.Value) string {
	c := v.Clone()
	var walk func(*triad.Value)
	walk = func(x *triad.Value) {
		for _, m := range x.Members {
			walk(m.Value)
		}
		for _, it := range x.Items {
			walk(it)
		}
		sort.SliceStable(x.Items, func(i, j int) bool {
			return string(triad.Canonical(x.Items[i])) < string(triad.Canonical(x.Items[j]))
		})
	}
	walk(c)
	return string(triad.Canonical(c))
}

func decodeBytes(t testing.TB, name string, b []byte) *triad.Value {
	t.Helper()
	v, err := triad.Decode(name, b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Every write command on a copy of the whole corpus changes only the
// intended bytes, and a second normalize or migrate changes nothing.
func TestAuthoringOnWholeCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("authors on a copy of the whole corpus; the -short passes (linux/386, Windows) leave it to the native run")
	}
	src := corpusRoot(t)
	ws := filepath.Join(tempRoot(t), "corpus")
	if err := agentstest.CopyTree(src, ws); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	ctx := context.Background()
	opts := Options{Agents: agents.Options{Path: ws}, Now: fixedClock("2026-11-22T10:00:00Z")}

	// normalize: only array order changes; a second run changes nothing.
	before := snapshot(t, ws)
	res, err := Normalize(ctx, opts, Tidy{Dir: ".", SortBacklog: "title", Write: true})
	if err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, ws)
	changed := changedFiles(before, after)
	written := 0
	for _, r := range res {
		if r.Written {
			written++
		}
	}
	if len(changed) != written || written == 0 {
		t.Fatalf("normalize wrote %d, %d files changed: %v", written, len(changed), changed)
	}
	for _, p := range changed {
		if orderFree(decodeBytes(t, p, before[p])) != orderFree(decodeBytes(t, p, after[p])) {
			t.Errorf("normalize changed more than array order in %s", p)
		}
	}
	if _, err := Normalize(ctx, opts, Tidy{Dir: ".", SortBacklog: "title", Write: true}); err != nil {
		t.Fatal(err)
	}
	if d := diffSnapshots(after, snapshot(t, ws)); d != "" {
		t.Errorf("second normalize changed %s", d)
	}

	// migrate: each change keeps a .bak of the old bytes (or renames the
	// legacy file to it), keeps every key it does not migrate, and a second
	// run changes nothing.
	before = snapshot(t, ws)
	layersBefore := profiles(t, ws)
	res, err = Migrate(ctx, opts, Tidy{Dir: ".", Write: true})
	if err != nil {
		t.Fatal(err)
	}
	after = snapshot(t, ws)
	// No profile loses a layer to a rename.
	layersAfter := profiles(t, ws)
	for k, v := range layersBefore {
		if strings.HasSuffix(k, " layers") && layersAfter[k] != v {
			t.Errorf("%s: %s before migrate, %s after", k, v, layersAfter[k])
		}
	}
	migrated := map[string]bool{}
	for _, r := range res {
		if !r.Written {
			continue
		}
		old := r.File
		if r.RenamedFrom != "" {
			old = r.RenamedFrom
			if _, still := after[old]; still {
				t.Errorf("legacy %s still there", old)
			}
		}
		migrated[r.File], migrated[old+".bak"] = true, true
		if !bytes.Equal(after[old+".bak"], before[old]) {
			t.Errorf("%s.bak does not hold the old bytes", old)
		}
		assertKeysKept(t, decodeBytes(t, old, before[old]), decodeBytes(t, r.File, after[r.File]), r.File)
	}
	if len(migrated) == 0 {
		t.Fatal("migrate changed nothing in the corpus")
	}
	for _, p := range changedFiles(before, after) {
		if !migrated[p] && !strings.HasSuffix(p, ".json") {
			t.Errorf("migrate changed %s", p)
		} else if !migrated[p] {
			if _, gone := after[p]; gone {
				t.Errorf("migrate changed %s", p)
			}
		}
	}
	if _, err := Migrate(ctx, opts, Tidy{Dir: ".", Write: true}); err != nil {
		t.Fatal(err)
	}
	if d := diffSnapshots(after, snapshot(t, ws)); d != "" {
		t.Errorf("second migrate changed %s", d)
	}

	// A rich entry, a day document and a commission touch only their files.
	repo := filepath.Join(ws, "clia-org__clia-agent-cli")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	opts.Agents.Path = repo
	before = snapshot(t, ws)
	logRes, err := Log(ctx, opts, LogEntry{Entry: Entry{Note: "corpus rich", Signature: "-T"}, Slugs: []string{"clia"},
		Details: []string{"d"}, Contributions: []Contribution{{By: "clia", Type: "code", Evidence: "e"}}})
	if err != nil {
		t.Fatal(err)
	}
	day, err := WriteDaily(ctx, opts, Daily{Slug: "clia", Highlights: []string{"h"}, Signature: "-T"})
	if err != nil {
		t.Fatal(err)
	}
	com, err := Commissioned(ctx, opts, Commission{Slug: "newcomer", Title: "Newcomer"})
	if err != nil {
		t.Fatal(err)
	}
	after = snapshot(t, ws)
	want := []string{logRes[0].File, day.File, com.Roster.File}
	for _, f := range com.Files {
		want = append(want, f.File)
	}
	sort.Strings(want)
	if got := changedFiles(before, after); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("changed %v, want %v", got, want)
	}
	if old, ok := before[logRes[0].File]; ok {
		assertOnlyAppended(t, decodeBytes(t, "old", old), decodeBytes(t, "new", after[logRes[0].File]), logRes[0].Entry)
	}
	if old, ok := before[com.Roster.File]; ok {
		if got := strings.Replace(string(after[com.Roster.File]), com.Roster.Row+"\n", "", 1); got != string(old) {
			t.Errorf("roster changed more than its row")
		}
	} else if !com.Roster.Created {
		t.Error("AGENTS.md was neither updated nor created")
	}
	if _, ok := before[logRes[0].File]; !ok {
		t.Error("the rich entry did not go into the existing agency document")
	}
}

// assertKeysKept: every top-level key migrate does not own has the same
// value after.
func assertKeysKept(t *testing.T, old, now *triad.Value, file string) {
	t.Helper()
	owned := map[string]bool{"$schemaVersion": true, "schemaVersion": true, "extensions": true, "sourcePath": true,
		"sections": true, "checklists": true, "notes": true, "role": true, "agentExpertise": true, "focusDomains": true}
	for _, m := range old.Members {
		if owned[m.Key] {
			continue
		}
		if m.Key == "entries" && m.Value.Kind == triad.Array {
			// Contributions take the grouped form; every other key of
			// every entry stays.
			strip := func(v *triad.Value) *triad.Value {
				c := v.Clone()
				for _, e := range c.Items {
					e.Delete("contributions")
				}
				return c
			}
			if n := now.Get("entries"); n == nil || !triad.Equal(strip(m.Value), strip(n)) {
				t.Errorf("%s: migrate changed entries beyond their contributions", file)
			}
			continue
		}
		if !triad.Equal(m.Value, now.Get(m.Key)) {
			t.Errorf("%s: migrate changed %q", file, m.Key)
		}
	}
}
