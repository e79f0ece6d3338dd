package sessions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func geminiSources(t testing.TB, dir string) []Source {
	var srcs []Source
	for _, p := range transcripts(t, dir) {
		srcs = append(srcs, Source{Harness: Gemini, Path: p})
	}
	return srcs
}

func geminiMain(t testing.TB, dir string) Source {
	return Source{Harness: Gemini, Path: filepath.Join(dir, "gemini-0.61.0", ".gemini", "tmp", "repo", "chats", "session-2026-11-28T19-48-5a08a16d.jsonl")}
}

// TestGeminiEveryRecordLands: for both Gemini fixtures every line is a
// record or a counted skip, every key lands in a commit the session's
// tract reaches, and a re-import adds nothing.
func TestGeminiEveryRecordLands(t *testing.T) {
	dir := unpack(t, "gemini")
	for _, fixture := range []string{"gemini-0.61.0", "gemini-0.61.0-tui"} {
		t.Run(fixture, func(t *testing.T) {
			repo, _ := newRepo(t)
			ctx := context.Background()
			srcs := geminiSources(t, filepath.Join(dir, fixture))
			im := &Importer{Repo: repo}
			rep, err := im.Import(ctx, srcs)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range rep.Sessions {
				checkSessionWith(t, repo, s, GeminiReader{})
			}
			again, err := im.Import(ctx, srcs)
			if err != nil {
				t.Fatal(err)
			}
			if again.Added != 0 {
				t.Errorf("re-import added %d commits, want 0", again.Added)
			}
		})
	}
}

// TestGeminiMapping checks the main headless run: nine prompts, the
// final write of each model message only, results paired (the failed
// read marked), lineage's start context marked, the subagent linked at
// its invoke_agent call, two compressions with what they kept.
func TestGeminiMapping(t *testing.T) {
	dir := unpack(t, "gemini")
	b, err := GeminiReader{}.Read(context.Background(), geminiMain(t, dir), Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Session.ID != "5a08a16d-14c8-4e49-ad4a-86fca70b72c1" || b.Session.Model != "gemini-3.1-pro-preview" {
		t.Errorf("session %+v", b.Session)
	}
	var prompts, failed, lineage, images int
	var compactions []*Compaction
	calls := map[string]bool{}
	for _, r := range b.Records {
		switch {
		case r.Kind == KindMessage && r.Role == "user" && strings.Contains(r.Text, "TX-T"):
			prompts++
		case r.Kind == KindToolCall:
			for _, c := range r.Calls {
				calls[c.ID] = true
			}
		case r.Kind == KindToolResult:
			if !calls[r.CallID] {
				t.Errorf("result %q pairs no call", r.CallID)
			}
			if r.IsError {
				failed++
			}
		case r.Kind == KindContext && r.Injected.Lineage:
			lineage++
		case r.Kind == KindImage:
			images++
		case r.Kind == KindCompaction:
			compactions = append(compactions, r.Compaction)
		}
	}
	if prompts != 9 {
		t.Errorf("%d prompts, want 9", prompts)
	}
	if failed < 2 {
		t.Errorf("%d failed results, want the shell exit 1 and the missing file", failed)
	}
	if lineage < 1 {
		t.Errorf("lineage's start context not marked")
	}
	if images < 1 {
		t.Errorf("no image kept by reference")
	}
	if len(compactions) != 2 || !strings.Contains(compactions[0].Summary, "tx-summary") || len(compactions[0].Kept) == 0 {
		t.Errorf("compactions %+v, want two, the first keeping the recent turns", compactions)
	}
	if len(b.Related) != 1 {
		t.Fatalf("related %v, want the subagent's log", b.Related)
	}
	sub, err := GeminiReader{}.Read(context.Background(), b.Related[0], Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	if o := sub.Session.Origin; o == nil || o.Kind != LinkSubagent || o.Session != b.Session.ID ||
		o.Key != "invoke_agent__invoke_agent_1795895377492_0" || !strings.Contains(o.Purpose, "TX-SUB") {
		t.Errorf("subagent origin %+v", o)
	}
}

// TestGeminiRewindIsABranch: the TUI run rewound to before T3; T9 follows
// the T1 answer and the abandoned T3 turns stay on a branch.
func TestGeminiRewindIsABranch(t *testing.T) {
	dir := unpack(t, "gemini")
	src := Source{Harness: Gemini, Path: filepath.Join(dir, "gemini-0.61.0-tui", ".gemini", "tmp", "repo", "chats", "session-2026-11-28T20-02-2f475226.jsonl")}
	b, err := GeminiReader{}.Read(context.Background(), src, Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	parent := map[string]string{}
	var t9 string
	for _, r := range b.Records {
		parent[r.Key()] = r.Parent
		if strings.Contains(r.Text, "TX-T9") {
			t9 = r.Key()
		}
	}
	if got := parent[t9]; !strings.HasPrefix(got, "5d6a8885") {
		t.Errorf("T9 follows %q, want the T1 answer 5d6a8885…", got)
	}
	repo, _ := newRepo(t)
	rep, err := (&Importer{Repo: repo}).Import(context.Background(), []Source{src})
	if err != nil {
		t.Fatal(err)
	}
	bs, err := repo.Branches(context.Background(), rep.Sessions[0].Tract)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) < 2 {
		t.Errorf("branches %v, want main and the rewound line", bs)
	}
}

// TestGeminiGrownLogAddsOnlyItsNewRecords cuts the main log at several
// lines (inside a model message's two writes among them), imports each
// growth, and ends with the same keys as one import of the whole.
func TestGeminiGrownLogAddsOnlyItsNewRecords(t *testing.T) {
	dir := unpack(t, "gemini")
	whole := geminiMain(t, dir).Path
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	grown := filepath.Join(t.TempDir(), filepath.Base(whole))
	repo, _ := newRepo(t)
	im := &Importer{Repo: repo}
	ctx := context.Background()
	lines := strings.SplitAfter(string(data), "\n")
	prev := 0
	for _, cut := range []int{3, 5, 6, 20, 45, 80, 100, len(lines)} {
		if err := appendFile(grown, strings.Join(lines[prev:cut], "")); err != nil {
			t.Fatal(err)
		}
		prev = cut
		if _, err := im.Import(ctx, []Source{{Harness: Gemini, Path: grown}}); err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
	}
	once, _ := newRepo(t)
	rep, err := (&Importer{Repo: once}).Import(ctx, []Source{{Harness: Gemini, Path: whole}})
	if err != nil {
		t.Fatal(err)
	}
	name := rep.Sessions[0].Tract
	a, b := storedKeys(t, repo, name), storedKeys(t, once, name)
	for k := range b {
		if !a[k] {
			t.Errorf("key %s only in the one import", k)
		}
	}
	for k := range a {
		if !b[k] {
			t.Errorf("key %s only in the grown import", k)
		}
	}
}

func TestGeminiUnknownTypeFailsLoudly(t *testing.T) {
	const head = `{"sessionId":"s-1","startTime":"2026-11-28T10:00:00Z","kind":"main"}`
	p := writeTranscript(t, "session-2026-11-28T10-00-s1.jsonl", head, `{"id":"m1","type":"hologram","content":"x"}`)
	_, err := GeminiReader{}.Read(context.Background(), Source{Harness: Gemini, Path: p}, Cursor{})
	var ue *UnclassifiedError
	if !errors.As(err, &ue) || ue.Type != "hologram" || ue.Line != 2 {
		t.Errorf("got %v, want an unclassified hologram on line 2", err)
	}
	for _, tc := range []struct{ line, want string }{
		{`{"id":"m1","type":"user"`, "line 2: not a JSON object"},
		{`{"id":"m1","content":"x"}`, "line 2: type: missing"},
		{`{"type":"user","content":"x"}`, "line 2: id: missing"},
		{`{"$rewindTo":"nowhere"}`, "line 2: $rewindTo: names message nowhere"},
		{`{"id":"m1","type":"user","content":7}`, "line 2: content: want a string or an array"},
	} {
		p := writeTranscript(t, "session-2026-11-28T10-00-s1.jsonl", head, tc.line)
		_, err := GeminiReader{}.Read(context.Background(), Source{Harness: Gemini, Path: p}, Cursor{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.line, err, tc.want)
		}
	}
}

// FuzzGeminiRead: arbitrary bytes never panic the Gemini reader; it fails
// with a typed error naming a line or gives records that map to commits.
func FuzzGeminiRead(f *testing.F) {
	f.Add([]byte(`{"sessionId":"s","startTime":"2026-11-28T10:00:00Z","kind":"main"}` + "\n" +
		`{"id":"u","type":"user","content":[{"text":"hi"}]}` + "\n" + `{"id":"g","type":"gemini","content":""}` + "\n" +
		`{"id":"g","type":"gemini","content":"","toolCalls":[{"id":"c","name":"read_file","args":{}}]}` + "\n" +
		`{"$rewindTo":"g"}` + "\n" + `{"$set":{"messages":[{"id":"z","type":"user","content":[{"text":"<state_snapshot>x"}]}]}}` + "\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "session-2026-11-28T10-00-s1.jsonl")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		b, err := GeminiReader{}.Read(context.Background(), Source{Harness: Gemini, Path: p}, Cursor{})
		if err != nil {
			var le *LineError
			var ue *UnclassifiedError
			if !errors.As(err, &le) && !errors.As(err, &ue) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		for _, r := range b.Records {
			if r.Key() == "" || r.Offset < 0 || r.Offset >= b.Next.Offset && b.Next.Offset > 0 {
				t.Fatalf("bad record %+v (next %d)", r, b.Next.Offset)
			}
			if _, err := (&sessionMapper{im: &Importer{}, rep: &SessionReport{}, b: b}).request(&r); err != nil {
				t.Fatalf("record %s has no commit: %v", r.Key(), err)
			}
		}
	})
}
