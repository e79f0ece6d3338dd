package sessions

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract/storetest"
)

// benchFile is the largest Claude fixture (2.1.332 main session).
func benchFile(b testing.TB) (string, int64) {
	dir := unpack(b, "claude")
	p := filepath.Join(dir, "claude-2.1.332", ".claude", "projects", "-repo", "11111111-2222-4333-8444-555555555555.jsonl")
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	return p, st.Size()
}

// BenchmarkClaudeRead is the reader alone: bytes of transcript per second.
func BenchmarkClaudeRead(b *testing.B) {
	p, size := benchFile(b)
	b.SetBytes(size)
	for b.Loop() {
		if _, err := (ClaudeReader{}).Read(context.Background(), Source{Harness: Claude, Path: p}, Cursor{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImportClaude is a whole first import into a fresh SQLite store.
func BenchmarkImportClaude(b *testing.B) {
	p, size := benchFile(b)
	benchFirstImport(b, p, size)
}

// benchFirstImport imports p into a fresh store per run and reports, beside
// the wall clock's MB/s, the transcript's megabytes a CPU second (the
// target's measure: on a loaded machine the wall clock measures the
// neighbours) and the CPU's microseconds a record.
func benchFirstImport(b *testing.B, p string, size int64) {
	b.SetBytes(size)
	var cpu float64
	records := 0
	for b.Loop() {
		b.StopTimer()
		repo, _ := newRepo(b)
		start, _ := storetest.ProcessCPU()
		b.StartTimer()
		rep, err := (&Importer{Repo: repo}).Import(context.Background(), []Source{{Harness: Claude, Path: p}})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		end, _ := storetest.ProcessCPU()
		b.StartTimer()
		cpu += end - start
		records = rep.Records
	}
	if cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/cpu, "MB/cpu-s")
		b.ReportMetric(cpu*1e6/float64(b.N*records), "cpu-us/record")
	}
}

// writeTurns appends turns start…start+n-1 to a Claude transcript at path:
// a user prompt and the assistant's answer each, chained by parentUuid after
// parent; it returns the last record's uuid.
func writeTurns(b testing.TB, path string, start, n int, parent string) string {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	const head = `{"isSidechain":false,"userType":"external","cwd":"/repo","sessionId":"aaaaaaaa-2222-4333-8444-555555555555","version":"2.1.332","gitBranch":"master"`
	id := func(i, k int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", 2*i+k) }
	for i := start; i < start+n; i++ {
		ts := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339)
		par := "null"
		if parent != "" {
			par = `"` + parent + `"`
		}
		fmt.Fprintf(w, `%s,"parentUuid":%s,"type":"user","message":{"role":"user","content":[{"type":"text","text":"turn %d: please look at item %d in the report and tell me what changed"}]},"uuid":"%s","timestamp":"%s"}`+"\n",
			head, par, i, i*7%1000, id(i, 0), ts)
		fmt.Fprintf(w, `%s,"parentUuid":"%s","type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"Item %d changed in turn %d: the totals moved and two rows were renamed."}],"stop_reason":"end_turn","usage":{"input_tokens":100,"output_tokens":20}},"uuid":"%s","timestamp":"%s"}`+"\n",
			head, id(i, 0), i, i*7%1000, i, id(i, 1), ts)
		parent = id(i, 1)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return parent
}

// BenchmarkImportTurns10k is a first import of a session of 10k short
// turns (20k records, 10 MB): the per-record cost.
func BenchmarkImportTurns10k(b *testing.B) {
	p := filepath.Join(b.TempDir(), "aaaaaaaa-2222-4333-8444-555555555555.jsonl")
	writeTurns(b, p, 0, 10_000, "")
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	benchFirstImport(b, p, st.Size())
}

// BenchmarkAppendTurn10k is live recording's work at a turn's end: one turn
// appended to a recorded session of 10k turns and imported.
func BenchmarkAppendTurn10k(b *testing.B) {
	p := filepath.Join(b.TempDir(), "aaaaaaaa-2222-4333-8444-555555555555.jsonl")
	last := writeTurns(b, p, 0, 10_000, "")
	repo, _ := newRepo(b)
	im := &Importer{Repo: repo}
	src := []Source{{Harness: Claude, Path: p}}
	if _, err := im.Import(context.Background(), src); err != nil {
		b.Fatal(err)
	}
	turn := 10_000
	for b.Loop() {
		b.StopTimer()
		last = writeTurns(b, p, turn, 1, last)
		turn++
		b.StartTimer()
		rep, err := im.Import(context.Background(), src)
		if err != nil || rep.Added != 2 {
			b.Fatalf("added %d, %v", rep.Added, err)
		}
	}
}

// BenchmarkClaudeReadTurns10k is the reader alone over ImportTurns10k's
// transcript.
func BenchmarkClaudeReadTurns10k(b *testing.B) {
	p := filepath.Join(b.TempDir(), "aaaaaaaa-2222-4333-8444-555555555555.jsonl")
	writeTurns(b, p, 0, 10_000, "")
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		if _, err := (ClaudeReader{}).Read(context.Background(), Source{Harness: Claude, Path: p}, Cursor{}); err != nil {
			b.Fatal(err)
		}
	}
}
