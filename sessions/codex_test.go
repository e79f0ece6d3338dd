package sessions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

// codexFixtures are the rollouts the real Codex CLI wrote (see
// docs/sessions.md), by run.
var codexFixtures = []string{"codex-0.169.0", "codex-0.171.0", "codex-0.171.0-tui"}

func codexSources(t testing.TB, dir string) []Source {
	var srcs []Source
	for _, p := range transcripts(t, dir) {
		srcs = append(srcs, Source{Harness: Codex, Path: p})
	}
	return srcs
}

// TestCodexEveryRecordLands: for every Codex fixture, every line is a
// record or a counted skip, every record key is in a commit the session's
// tract reaches, and a re-import reads and adds nothing.
func TestCodexEveryRecordLands(t *testing.T) {
	dir := unpack(t, "codex")
	for _, fixture := range codexFixtures {
		t.Run(fixture, func(t *testing.T) {
			repo, _ := newRepo(t)
			ctx := context.Background()
			srcs := codexSources(t, filepath.Join(dir, fixture))
			if len(srcs) != 3 {
				t.Fatalf("%d rollouts, want 3", len(srcs))
			}
			im := &Importer{Repo: repo}
			rep, err := im.Import(ctx, srcs)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range rep.Sessions {
				checkSessionWith(t, repo, s, CodexReader{})
			}
			again, err := im.Import(ctx, srcs)
			if err != nil {
				t.Fatal(err)
			}
			if again.Added != 0 || again.Records != 0 {
				t.Errorf("re-import read %d records and added %d commits, want 0 and 0", again.Records, again.Added)
			}
		})
	}
}

// TestCodexLinks checks what each kind of rollout links to: the sub-agent
// its spawn_agent call, the fork the last record before its history_base,
// the rewind segment the record before the rewound turn (and its own keys
// never meet the first file's ordinals).
func TestCodexLinks(t *testing.T) {
	dir := unpack(t, "codex")
	ctx := context.Background()
	read := func(fixture, id string) Batch {
		t.Helper()
		for _, s := range codexSources(t, filepath.Join(dir, fixture)) {
			if strings.HasSuffix(s.Path, id+".jsonl") {
				b, err := CodexReader{}.Read(ctx, s, Cursor{})
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
		}
		t.Fatalf("no rollout %s", id)
		return Batch{}
	}
	main := read("codex-0.171.0", "01a223ad-4246-7093-a023-da061df0a1ec")
	if main.Session.Origin != nil || main.Session.Version != "0.171.0" || main.Session.Cwd != "<repo>" || main.Session.GitBranch != "master" {
		t.Errorf("main session %+v", main.Session)
	}
	sub := read("codex-0.171.0", "01a223ad-6043-7233-82af-0b9c0b91a68c")
	if o := sub.Session.Origin; o == nil || o.Kind != LinkSubagent || o.Session != "01a223ad-4246-7093-a023-da061df0a1ec" || o.Key != "call_hx011" ||
		!strings.Contains(o.Purpose, "TX-SUB") {
		t.Errorf("sub-agent origin %+v", o)
	}
	fork := read("codex-0.171.0", "01a223ad-87c1-7be1-8a83-ccaf2d8fff77")
	if o := fork.Session.Origin; o == nil || o.Kind != LinkFork || o.Session != "01a223ad-4246-7093-a023-da061df0a1ec" || o.Key != "145" {
		t.Errorf("fork origin %+v, want the T8 answer (145)", o)
	}
	seg := read("codex-0.171.0-tui", "01a223be-fe0a-72a1-b13d-fd8c610d5ae0_01a223bf-2955-7a82-b637-d61a530c30b0")
	if o := seg.Session.Origin; o == nil || o.Kind != LinkRewind || o.Session != "01a223be-fe0a-72a1-b13d-fd8c610d5ae0" || o.Key == "" {
		t.Errorf("segment origin %+v", o)
	}
	for _, r := range seg.Records {
		if !strings.HasPrefix(r.Key(), "01a223bf-2955-7a82-b637-d61a530c30b0/") {
			t.Fatalf("segment record key %q not under the segment", r.Key())
		}
	}
	tuiFork := read("codex-0.171.0-tui", "01a223bf-866e-78a0-8033-4cb5677b85fa")
	if o := tuiFork.Session.Origin; o == nil || o.Kind != LinkFork || !strings.HasPrefix(o.Key, "01a223bf-2955-7a82-b637-d61a530c30b0/") {
		t.Errorf("a fork of a segment links into the segment: %+v", o)
	}
}

// TestCodexMapping checks the records of the main headless run: prompts,
// tool calls paired with results (the failed ones marked), lineage's own
// hook text marked, the compaction keeping the user's prompts, images by
// reference.
func TestCodexMapping(t *testing.T) {
	dir := unpack(t, "codex")
	var src Source
	for _, s := range codexSources(t, filepath.Join(dir, "codex-0.171.0")) {
		if strings.Contains(s.Path, "4246") {
			src = s
		}
	}
	b, err := CodexReader{}.Read(context.Background(), src, Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	var prompts, failed, lineage, images int
	calls := map[string]bool{}
	var compaction *Compaction
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
				t.Errorf("result %s before its call", r.CallID)
			}
			if r.IsError {
				failed++
			}
		case r.Kind == KindContext && r.Injected.Lineage:
			lineage++
		case r.Kind == KindImage:
			images++
			if r.Image.MediaType != "image/png" || r.Image.Size == 0 || len(r.Image.SHA256) != 64 {
				t.Errorf("image %+v", r.Image)
			}
		case r.Kind == KindCompaction:
			compaction = r.Compaction
		}
	}
	if prompts != 8 {
		t.Errorf("%d prompts, want 8 (T1-T8)", prompts)
	}
	if failed != 2 {
		t.Errorf("%d failed results, want 2 (the shell exit 1, the failed apply_patch)", failed)
	}
	if lineage < 2 {
		t.Errorf("%d lineage texts marked, want the start and the reminder", lineage)
	}
	if images != 2 {
		t.Errorf("%d images, want 2 (the prompt's and view_image's)", images)
	}
	if compaction == nil || !strings.Contains(compaction.Summary, "tx-summary") || len(compaction.Kept) < 6 {
		t.Errorf("compaction %+v, want the summary keeping the six earlier prompts", compaction)
	}
}

// TestCodexGrownRolloutAddsOnlyItsNewRecords imports a rollout cut at
// several lines, then whole: each import reads no stored commit and the
// result holds the same keys as one import of the whole file.
func TestCodexGrownRolloutAddsOnlyItsNewRecords(t *testing.T) {
	dir := unpack(t, "codex")
	var whole string
	for _, s := range codexSources(t, filepath.Join(dir, "codex-0.171.0")) {
		if strings.Contains(s.Path, "4246") {
			whole = s.Path
		}
	}
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	grown := filepath.Join(t.TempDir(), "sessions", filepath.Base(whole))
	if err := os.MkdirAll(filepath.Dir(grown), 0o755); err != nil {
		t.Fatal(err)
	}
	repo, st := newRepo(t)
	cs := &countingStore{Store: st}
	repo = tract.New(cs, tract.Options{})
	im := &Importer{Repo: repo}
	ctx := context.Background()
	lines := strings.SplitAfter(string(data), "\n")
	prev := 0
	summaries := 0
	for _, cut := range []int{5, 12, 40, 90, 125, 135, len(lines)} {
		part := strings.Join(lines[prev:cut], "")
		if err := appendFile(grown, part); err != nil {
			t.Fatal(err)
		}
		prev = cut
		cs.read.Store(0)
		cs.written.Store(0)
		rep, err := im.Import(ctx, []Source{{Harness: Codex, Path: grown}})
		if err != nil {
			t.Fatal(err)
		}
		s := rep.Sessions[0]
		summaries += s.Summaries
		if strings.Contains(part, `"type":"compacted"`) {
			// Compressing reads the line it replaces and writes the
			// summary commit beside the records.
			if s.Summaries != 1 || int(cs.written.Load()) != s.Added+1 {
				t.Errorf("cut %d: %d summaries, %d rows for %d records; want 1 and one more row", cut, s.Summaries, cs.written.Load(), s.Added)
			}
			continue
		}
		if s.IndexReads != 0 || cs.read.Load() != 0 {
			t.Errorf("cut %d: read %d stored commits (index %d), want 0", cut, cs.read.Load(), s.IndexReads)
		}
		if int(cs.written.Load()) != s.Added {
			t.Errorf("cut %d: wrote %d commit rows for %d new records", cut, cs.written.Load(), s.Added)
		}
	}
	if summaries != 1 {
		t.Errorf("%d compactions applied, want 1", summaries)
	}
	once, _ := newRepo(t)
	rep, err := (&Importer{Repo: once}).Import(ctx, []Source{{Harness: Codex, Path: whole}})
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
	if len(a) != len(b) {
		t.Errorf("grown import holds %d keys, one import %d", len(a), len(b))
	}
}

func TestCodexUnknownTypeFailsLoudly(t *testing.T) {
	const meta = `{"timestamp":"2026-11-28T10:00:00Z","ordinal":0,"type":"session_meta","payload":{"id":"01a2-x","cwd":"/w"}}`
	for _, tc := range []struct{ line, typ string }{
		{`{"ordinal":1,"type":"hologram","payload":{}}`, "hologram"},
		{`{"ordinal":1,"type":"response_item","payload":{"type":"warp"}}`, "response_item/warp"},
		{`{"ordinal":1,"type":"event_msg","payload":{"type":"smell"}}`, "event_msg/smell"},
		{`{"ordinal":1,"type":"event_msg","payload":{"type":"item_completed","item":{"type":"Dream"}}}`, "event_msg/item_completed/Dream"},
		{`{"ordinal":1,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_video"}]}}`, "response_item/message/input_video"},
	} {
		p := writeTranscript(t, "rollout-2026-11-28T10-00-00-01a2-0000-0000-0000-000000000000.jsonl", meta, tc.line)
		_, err := CodexReader{}.Read(context.Background(), Source{Harness: Codex, Path: p}, Cursor{})
		var ue *UnclassifiedError
		if !errors.As(err, &ue) || ue.Type != tc.typ || ue.Line != 2 {
			t.Errorf("%s: got %v, want an unclassified %q on line 2", tc.typ, err, tc.typ)
		}
	}
	for _, tc := range []struct{ line, want string }{
		{`{"ordinal":1,"type":"response_item"`, "line 2: not a JSON object"},
		{`{"type":"response_item","payload":{}}`, "line 2: ordinal: missing"},
		{`{"ordinal":1,"payload":{}}`, "line 2: type: missing"},
		{`{"ordinal":1,"type":"response_item","payload":{"type":"function_call","name":"x"}}`, "line 2: payload.call_id: missing"},
	} {
		p := writeTranscript(t, "rollout-x.jsonl", meta, tc.line)
		_, err := CodexReader{}.Read(context.Background(), Source{Harness: Codex, Path: p}, Cursor{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.line, err, tc.want)
		}
	}
}

// FuzzCodexRead feeds arbitrary bytes to the Codex reader as a rollout:
// it never panics, fails with a typed error naming a line, or gives
// records that each have a key, a known kind and an offset inside the file
// and map to a commit.
func FuzzCodexRead(f *testing.F) {
	f.Add([]byte(`{"timestamp":"2026-11-28T10:00:00Z","ordinal":0,"type":"session_meta","payload":{"id":"x","base_instructions":{"text":"sys"}}}` + "\n" +
		`{"ordinal":1,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}` + "\n"))
	f.Add([]byte(`{"ordinal":3,"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{}","call_id":"c"}}` + "\n" +
		`{"ordinal":4,"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]}}` + "\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "rollout-2026-11-28T10-00-00-01a2-0000-0000-0000-000000000000.jsonl")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		b, err := CodexReader{}.Read(context.Background(), Source{Harness: Codex, Path: p}, Cursor{})
		if err != nil {
			var le *LineError
			var ue *UnclassifiedError
			if !errors.As(err, &le) && !errors.As(err, &ue) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		known := map[Kind]bool{KindMessage: true, KindToolCall: true, KindToolResult: true, KindReasoning: true,
			KindContext: true, KindCompaction: true, KindImage: true, KindMetadata: true, KindUnmapped: true}
		for _, r := range b.Records {
			if r.Key() == "" || !known[r.Kind] || r.Offset < 0 || r.Offset >= b.Next.Offset {
				t.Fatalf("bad record %+v", r)
			}
			if _, err := (&sessionMapper{im: &Importer{}, rep: &SessionReport{}, b: b}).request(&r); err != nil {
				t.Fatalf("record %s has no commit: %v", r.Key(), err)
			}
		}
	})
}
