package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"ExportImportRoundTrip", testExportRoundTrip},
		{"ImportRefusesDamage", testImportDamage},
		{"ImportedTimesVerify", testImportedTimesVerify},
	})
}

// BuildExportFixture fills a store with everything an export carries:
// tracts with a spawn, branches, tags, merges, edits, annotations, tools
// and metadata.
func BuildExportFixture(t testing.TB, repo *tract.Repo) {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	commit := func(name string, c tract.Content, meta string) tract.Commit {
		t.Helper()
		req := tract.CommitRequest{Content: c}
		if meta != "" {
			req.Meta = []byte(meta)
		}
		out, err := repo.Commit(ctx, name, req)
		must(err)
		return out
	}
	commit("main", tract.Content{Type: tract.TypeInstruction, Name: "style", Text: "be brief"}, "")
	first := commit("main", tract.Content{Type: tract.TypeMessage, Text: "hello\nworld \u00e9"}, `{"ticket":"T-1","n":2}`)
	tools, err := tract.ParseTools([]byte(`[{"name":"lookup","parameters":{"type":"object"}}]`))
	must(err)
	commit("main", tract.Content{Type: tract.TypeTools, Tools: tools}, "")
	_, err = repo.CreateBranch(ctx, "main", "side", "")
	must(err)
	must(repo.Switch(ctx, "main", "side"))
	commit("main", tract.Content{Type: tract.TypeMessage, Role: "assistant", Text: "on side"}, "")
	must(repo.Switch(ctx, "main", "main"))
	commit("main", tract.Content{Type: tract.TypeMessage, Text: "on main"}, "")
	_, err = repo.Merge(ctx, "main", "side", tract.MergeOptions{})
	must(err)
	_, err = repo.Edit(ctx, "main", string(first.Hash), "hello again", "fix")
	must(err)
	_, err = repo.Annotate(ctx, "main", string(first.Hash), tract.Important, "key")
	must(err)
	_, err = repo.CreateTag(ctx, "main", "v1", "")
	must(err)
	_, err = repo.Spawn(ctx, "main", "child", tract.SpawnOptions{Purpose: "research"})
	must(err)
	commit("child", tract.Content{Type: tract.TypeMessage, Role: "assistant", Text: "found it"}, "")
	_, err = repo.MergeFrom(ctx, "child", "")
	must(err)
}

func exportAll(t testing.TB, repo *tract.Repo) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := repo.Export(context.Background(), &buf, tract.ExportOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// RoundTrip imports an export into to and exports it again: the bytes must
// match and the store must verify clean.
func RoundTrip(t testing.TB, export []byte, to *tract.Repo) []byte {
	t.Helper()
	if _, err := importBytes(to, export); err != nil {
		t.Fatal(err)
	}
	again := exportAll(t, to)
	if !bytes.Equal(again, export) {
		t.Fatalf("export after import differs:\n%s\n---\n%s", export, again)
	}
	rep, err := to.Verify(context.Background())
	if err != nil || len(rep.Damage) != 0 {
		t.Fatalf("verify after import: %+v %v", rep.Damage, err)
	}
	return again
}

func testExportRoundTrip(t *testing.T, newStore Factory) {
	clk := newClock()
	repo := tract.New(newStore(t), tract.Options{Now: clk.Now})
	if _, _, err := repo.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	BuildExportFixture(t, repo)
	export := exportAll(t, repo)
	for _, kind := range []string{`"kind":"tract"`, `"kind":"blob"`, `"kind":"commit"`, `"kind":"ref"`, `"kind":"annotation"`, `"spawn":{`, `"meta":{`, `"name":"tag:v1"`} {
		if !bytes.Contains(export, []byte(kind)) {
			t.Fatalf("export lacks %s", kind)
		}
	}
	to := tract.New(newStore(t), tract.Options{Now: clk.Now})
	RoundTrip(t, export, to)
	want, err := repo.Compile(context.Background(), "main", tract.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := to.Compile(context.Background(), "main", tract.CompileOptions{})
	if err != nil || got.Tokens != want.Tokens || len(got.Messages) != len(want.Messages) || len(got.Tools) != 1 {
		t.Fatalf("compile after import: %d tokens %d messages (want %d, %d), %v", got.Tokens, len(got.Messages), want.Tokens, len(want.Messages), err)
	}
	// A second import collides with the tracts now there and writes nothing.
	before := exportAll(t, to)
	if _, err := importBytes(to, export); !errors.Is(err, tract.ErrExists) {
		t.Fatalf("second import: %v", err)
	}
	if !bytes.Equal(exportAll(t, to), before) {
		t.Fatal("a failed import changed the store")
	}
	// One tract alone.
	var one bytes.Buffer
	rep, err := repo.Export(context.Background(), &one, tract.ExportOptions{Tract: "child"})
	if err != nil || rep.Tracts != 1 || rep.Commits == 0 {
		t.Fatalf("export child: %+v %v", rep, err)
	}
}

func testImportDamage(t *testing.T, newStore Factory) {
	clk := newClock()
	repo := tract.New(newStore(t), tract.Options{Now: clk.Now})
	if _, _, err := repo.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	BuildExportFixture(t, repo)
	export := string(exportAll(t, repo))
	to := tract.New(newStore(t), tract.Options{Now: clk.Now})
	for name, bad := range map[string]string{
		"changed text":    strings.Replace(export, "on side", "on s1de", 1),
		"changed message": strings.Replace(export, `"message":"fix"`, `"message":"fax"`, 1),
		"changed meta":    strings.Replace(export, `"T-1"`, `"T-2"`, 1),
	} {
		_, err := importBytes(to, []byte(bad))
		if !errors.Is(err, tract.ErrDamaged) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for name, bad := range map[string]string{
		"no header":    export[strings.IndexByte(export, '\n')+1:],
		"unknown kind": export + `{"kind":"nope"}` + "\n",
		"not json":     export + "{\n",
		"empty":        "",
	} {
		_, err := importBytes(to, []byte(bad))
		var ee *tract.ExportError
		if !errors.As(err, &ee) || errors.Is(err, tract.ErrDamaged) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if ts, _ := to.Store().Tracts(context.Background()); len(ts) != 0 {
		t.Fatalf("a refused import left tracts %+v", ts)
	}
}

func importBytes(to *tract.Repo, data []byte) (tract.ImportReport, error) {
	p, err := tract.ParseExport(bytes.NewReader(data))
	if err != nil {
		return tract.ImportReport{}, err
	}
	return to.ImportExport(context.Background(), p)
}

// testImportedTimesVerify: an export whose times are at the edges of what
// import accepts (1970, the end of 2261, nanoseconds) is imported, keeps
// every time and passes verify; a time past them is refused, nothing
// written. Whatever import accepts, verify passes.
func testImportedTimesVerify(t *testing.T, newStore Factory) {
	ctx := context.Background()
	for _, at := range []time.Time{time.Unix(0, 0).UTC(), time.Date(2261, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(2026, 5, 6, 7, 8, 9, 123456789, time.UTC)} {
		to := tract.New(newStore(t), tract.Options{})
		if _, err := importBytes(to, []byte(timedExport(t, at))); err != nil {
			t.Fatalf("%s: %v", at, err)
		}
		rep, err := to.Verify(ctx)
		if err != nil || len(rep.Damage) != 0 {
			t.Fatalf("%s: verify after import: %+v %v", at, rep.Damage, err)
		}
		log, err := to.Log(ctx, "main", tract.LogOptions{})
		if err != nil || len(log) != 1 || !log[0].Time.Equal(at) {
			t.Fatalf("%s: log after import: %+v %v", at, log, err)
		}
	}
	to := tract.New(newStore(t), tract.Options{})
	for _, at := range []time.Time{time.Date(2262, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)} {
		if _, err := importBytes(to, []byte(timedExport(t, at))); err == nil || !strings.Contains(err.Error(), "outside what a store keeps") {
			t.Fatalf("%s: %v, want it refused", at, err)
		}
	}
	if ts, _ := to.Store().Tracts(ctx); len(ts) != 0 {
		t.Fatalf("a refused import left tracts %+v", ts)
	}
}

// timedExport is an export of one tract whose one commit, rightly hashed,
// was made at at.
func timedExport(t testing.TB, at time.Time) string {
	t.Helper()
	b, err := tract.NewBlob(tract.Content{Type: tract.TypeMessage, Role: tract.RoleUser, Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	c := tract.Commit{Parents: []tract.Hash{}, Content: b.Hash, Operation: tract.OpAppend, Tract: "t1", Time: at}
	c.Hash = c.ComputeHash()
	return strings.Join([]string{`{"kind":"lineage-export","version":1}`,
		`{"kind":"tract","id":"t1","name":"main","created":"2026-01-02T03:04:05Z"}`,
		fmt.Sprintf(`{"kind":"blob","hash":"%s","data":%s}`, b.Hash, b.Data),
		fmt.Sprintf(`{"kind":"commit","hash":"%s","parents":[],"content":"%s","operation":"append","time":"%s","tract":"t1"}`, c.Hash, b.Hash, at.Format(time.RFC3339Nano)),
		`{"kind":"ref","tract":"t1","name":"HEAD","value":"branch:main"}`,
		fmt.Sprintf(`{"kind":"ref","tract":"t1","name":"main","value":"%s"}`, c.Hash),
	}, "\n") + "\n"
}
