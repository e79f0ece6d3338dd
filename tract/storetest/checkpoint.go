package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentlineage/lineage/internal/tokens"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
)

func init() {
	suites = append(suites, []testCase{{"CompileCheckpoints", testCheckpoints}, {"UncountedCompile", testUncounted}, {"CheckpointLookedUpOnce", testCheckpointLookedUpOnce}})
}

// noHistory is a store that refuses to read a whole history: what a
// command using the stored compile checkpoint must never need.
type noHistory struct{ tract.Store }

var errWholeHistory = errors.New("read the whole history")

func (noHistory) History(context.Context, []tract.Hash, string) ([]tract.HistoryCommit, error) {
	return nil, errWholeHistory
}

func (noHistory) Ancestry(context.Context, []tract.Hash) ([]tract.Commit, error) {
	return nil, errWholeHistory
}

// messagesOnly is noHistory that also refuses a checkpoint's data: what a
// cold compile at the checkpoint's head, or a few appends past it, never
// needs.
type messagesOnly struct{ noHistory }

func (h messagesOnly) CompiledView(ctx context.Context, viewer, encoding string, part tract.ViewPart) (tract.CompiledView, error) {
	if part == tract.ViewData {
		return tract.CompiledView{}, errWholeHistory
	}
	return h.noHistory.CompiledView(ctx, viewer, encoding, part)
}

// headerOnly is noHistory that refuses both parts of a checkpoint: what
// status must never need.
type headerOnly struct{ noHistory }

func (h headerOnly) CompiledView(ctx context.Context, viewer, encoding string, part tract.ViewPart) (tract.CompiledView, error) {
	if part != tract.ViewHeader {
		return tract.CompiledView{}, errWholeHistory
	}
	return h.noHistory.CompiledView(ctx, viewer, encoding, part)
}

// lentOnly is headerOnly for a store that lends: the messages part comes
// only lent (what a cold openai compile from a lending store reads).
type lentOnly struct {
	headerOnly
	l tract.ViewLender
}

func (h lentOnly) LendCompiledView(ctx context.Context, viewer, encoding string, fn func(tract.CompiledView) error) error {
	return h.l.LendCompiledView(ctx, viewer, encoding, fn)
}

// movedLend lends another checkpoint than the one its header promised (one
// another process stored between the two reads), or, with gone, none.
type movedLend struct {
	tract.Store
	gone bool
}

func (m movedLend) LendCompiledView(ctx context.Context, viewer, encoding string, fn func(tract.CompiledView) error) error {
	cv, err := m.Store.CompiledView(ctx, viewer, encoding, tract.ViewMessages)
	if err != nil || m.gone {
		return tract.ErrNotFound
	}
	cv.Tokens++
	cv.Sum = "0000000000000000000000000000000000000000000000000000000000000000"
	return fn(cv)
}

// storedView reads both parts of a checkpoint.
func storedView(ctx context.Context, s tract.Store, viewer string) (tract.CompiledView, error) {
	cv, err := s.CompiledView(ctx, viewer, "o200k_base", tract.ViewMessages)
	if err != nil {
		return cv, err
	}
	data, err := s.CompiledView(ctx, viewer, "o200k_base", tract.ViewData)
	cv.Data = data.Data
	if err != nil {
		return cv, err
	}
	// Its pieces, as a put stores them.
	err = s.CompiledViewPieces(ctx, viewer, "o200k_base", cv.Sum, 0, 1<<30, func(piece int, data []byte) error {
		if piece != len(cv.Pieces) {
			return fmt.Errorf("piece %d read after %d pieces", piece, len(cv.Pieces))
		}
		cv.Pieces = append(cv.Pieces, bytes.Clone(data))
		return nil
	})
	if err == nil && !bytes.Equal(bytes.Join(cv.Pieces, nil), cv.Messages) {
		err = fmt.Errorf("the pieces of the checkpoint of %s are not its messages", viewer)
	}
	return cv, err
}

// testCheckpoints: a compile stores the compiled view; a fresh repo
// compiles from it (no history read) and status reads only its header; a
// damaged checkpoint is refused (ErrDamaged), listed by verify and removed
// by gc, after which compile rebuilds it; a checkpoint goes with its head
// (gc) and its viewer (tract rm) and is never exported.
func testCheckpoints(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.importNumbered(100)
	want, err := e.repo.CompileCold(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	main, err := e.repo.Tract(e.ctx, "main")
	e.must(err)
	cv, err := storedView(e.ctx, e.store, main.ID)
	e.must(err)
	if cv.Head != want.Head || cv.Tokens+3 != want.Tokens || len(cv.Data) == 0 || len(cv.Messages) == 0 {
		t.Fatalf("stored checkpoint at %s with %d tokens; want %s, %d", cv.Head.Short(), cv.Tokens, want.Head.Short(), want.Tokens-3)
	}
	got := checkCompilesFromCheckpoint(e, want)
	checkDamagedCheckpoints(e, main.ID, got)
	checkCheckpointNeverExported(e)
	checkCheckpointGoes(e, main.ID)
}

// checkCompilesFromCheckpoint: a fresh process compiles main as want
// without a whole-history read, not even the checkpoint's data, and its
// status too; one commit more extends the checkpoint, still without one,
// to the compile it returns.
func checkCompilesFromCheckpoint(e *env, want tract.Result) tract.Result {
	t := e.t
	t.Helper()
	fresh := tract.New(messagesOnly{noHistory{e.store}}, tract.Options{Now: e.clock.Now})
	got, err := fresh.CompileCold(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	if got.Tokens != want.Tokens || len(got.Messages) != len(want.Messages) {
		t.Fatalf("compile from the checkpoint: %d tokens, %d messages; want %d, %d", got.Tokens, len(got.Messages), want.Tokens, len(want.Messages))
	}
	// The in-process cache keeps a whole view: it reads the data, never
	// the history.
	warm, err := tract.New(noHistory{e.store}, tract.Options{Now: e.clock.Now}).Compile(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	if warm.Tokens != want.Tokens || len(warm.Messages) != len(want.Messages) {
		t.Fatalf("warm compile from the checkpoint: %d tokens, %d messages; want %d, %d", warm.Tokens, len(warm.Messages), want.Tokens, len(want.Messages))
	}
	st, err := fresh.Status(e.ctx, "main")
	e.must(err)
	if st.Tokens != want.Tokens {
		t.Fatalf("status: %d tokens, want %d", st.Tokens, want.Tokens)
	}
	sameOpenAI(t, fresh, want)
	// One more commit: the checkpoint is extended, still no history read.
	e.add("main", tract.TypeMessage, "user", "one more")
	got, err = fresh.CompileCold(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	if len(got.Messages) != len(want.Messages)+1 {
		t.Fatalf("compile one commit past the checkpoint: %d messages, want %d", len(got.Messages), len(want.Messages)+1)
	}
	sameOpenAI(t, fresh, got)
	// From a store that lends the messages part, only the header is read
	// beside it; a checkpoint replaced or removed between the two reads is
	// not used.
	if l, ok := e.store.(tract.ViewLender); ok {
		sameOpenAI(t, tract.New(lentOnly{headerOnly{noHistory{e.store}}, l}, tract.Options{}), got)
	}
	for _, gone := range []bool{false, true} {
		sameOpenAI(t, tract.New(movedLend{e.store, gone}, tract.Options{}), got)
	}
	st, err = tract.New(headerOnly{noHistory{e.store}}, tract.Options{}).Status(e.ctx, "main")
	e.must(err)
	if st.Tokens != got.Tokens {
		t.Fatalf("status past the checkpoint: %d tokens, want %d", st.Tokens, got.Tokens)
	}
	return got
}

// The damages checkDamagedCheckpoints does to a stored checkpoint, by
// index: its data, its messages, then header fields.
const checkpointDataDamage, checkpointMessagesDamage = 0, 1

// checkDamagedCheckpoints: damage to the data, the messages, or a header
// field, no longer matches the sums. What reads a damaged part refuses it;
// what reads only sound parts (the header's sum covers both parts' sums)
// answers right (got); verify lists it, gc removes it and the next compile
// rebuilds it.
func checkDamagedCheckpoints(e *env, tractID string, got tract.Result) {
	t := e.t
	t.Helper()
	put := func(cv tract.CompiledView) {
		t.Helper()
		e.must(e.store.Update(e.ctx, func(tx tract.Tx) error { return tx.PutCompiledView(e.ctx, cv) }))
	}
	cv, err := storedView(e.ctx, e.store, tractID)
	e.must(err)
	for i, damage := range []func(cv *tract.CompiledView){
		func(cv *tract.CompiledView) {
			cv.Data = bytes.Replace(bytes.Clone(cv.Data), []byte("message 42"), []byte("message 24"), 1)
		},
		func(cv *tract.CompiledView) {
			pieces := slices.Clone(cv.Pieces)
			for i, p := range pieces {
				if bytes.Contains(p, []byte("message 42")) {
					pieces[i] = bytes.Replace(bytes.Clone(p), []byte("message 42"), []byte("message 24"), 1)
				}
			}
			cv.Pieces = pieces
		},
		func(cv *tract.CompiledView) { cv.Tokens++ },
		func(cv *tract.CompiledView) { cv.AnnSeq += 5 },
	} {
		bad := cv
		damage(&bad)
		put(bad)
		r := tract.New(e.store, tract.Options{})
		readDamagedCheckpoint(e, r, i, got)
		cv = collectDamagedCheckpoint(e, r, tractID, got)
	}
}

// readDamagedCheckpoint checks what reads checkpoint damage number i
// (see checkpointDataDamage): compiles cold, streamed and warm, and
// status.
func readDamagedCheckpoint(e *env, r *tract.Repo, i int, got tract.Result) {
	t := e.t
	t.Helper()
	// A cold compile reads the messages; the cache's view the data.
	cold, err := r.CompileCold(e.ctx, "main", tract.CompileOptions{})
	if i == checkpointDataDamage {
		if err != nil || !slices.Equal(messageTexts(cold), messageTexts(got)) {
			t.Fatalf("cold compile beside damaged checkpoint data: %v", err)
		}
	} else if !errors.Is(err, tract.ErrDamaged) {
		t.Fatalf("cold compile with a damaged checkpoint (%d): %v, want ErrDamaged", i, err)
	}
	// So does one written as it is read, and it writes nothing then.
	var streamed bytes.Buffer
	err = compileOpenAI(e.ctx, r, &streamed, "main", tract.CompileOptions{}, "  ")
	if i == checkpointDataDamage {
		if err != nil {
			t.Fatalf("openai compile beside damaged checkpoint data: %v", err)
		}
	} else if !errors.Is(err, tract.ErrDamaged) || streamed.Len() > 0 {
		t.Fatalf("openai compile with a damaged checkpoint (%d): %v and %d bytes written, want ErrDamaged and none", i, err, streamed.Len())
	}
	// The cache's first compile reads the messages, as a cold one; the
	// next builds its view from the data.
	warm, err := r.Compile(e.ctx, "main", tract.CompileOptions{})
	if i == checkpointDataDamage {
		if err != nil || !slices.Equal(messageTexts(warm), messageTexts(got)) {
			t.Fatalf("first cached compile beside damaged checkpoint data: %v", err)
		}
		warm, err = r.Compile(e.ctx, "main", tract.CompileOptions{})
	}
	if i == checkpointMessagesDamage {
		if err != nil || !slices.Equal(messageTexts(warm), messageTexts(got)) {
			t.Fatalf("compile beside damaged checkpoint messages: %v", err)
		}
	} else if !errors.Is(err, tract.ErrDamaged) {
		t.Fatalf("compile with a damaged checkpoint (%d): %v, want ErrDamaged", i, err)
	}
	// Status reads the header alone.
	st, err := r.Status(e.ctx, "main")
	switch {
	case (i == checkpointDataDamage || i == checkpointMessagesDamage) && (err != nil || st.Tokens != got.Tokens):
		t.Fatalf("status beside a damaged checkpoint part: %d tokens, %v; want %d", st.Tokens, err, got.Tokens)
	case i > checkpointMessagesDamage && !errors.Is(err, tract.ErrDamaged):
		t.Fatalf("status with a damaged checkpoint header: %v, want ErrDamaged", err)
	}
}

// collectDamagedCheckpoint: verify lists the damaged checkpoint, gc
// removes it, and the next cold compile (as got) rebuilds it, which it
// returns.
func collectDamagedCheckpoint(e *env, r *tract.Repo, tractID string, got tract.Result) tract.CompiledView {
	t := e.t
	t.Helper()
	rep, err := r.Verify(e.ctx)
	e.must(err)
	if len(rep.Damage) != 1 || rep.Damage[0].Kind != "checkpoint" {
		t.Fatalf("verify with a damaged checkpoint: %+v", rep.Damage)
	}
	_, err = r.GC(e.ctx, tract.GCOptions{})
	e.must(err)
	if _, err := e.store.CompiledView(e.ctx, tractID, "o200k_base", tract.ViewHeader); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("gc left a damaged checkpoint: %v", err)
	}
	again, err := r.CompileCold(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	if again.Tokens != got.Tokens {
		t.Fatalf("rebuilt compile: %d tokens, want %d", again.Tokens, got.Tokens)
	}
	cv, err := storedView(e.ctx, e.store, tractID)
	if err != nil {
		t.Fatalf("compile did not rebuild the checkpoint: %v", err)
	}
	return cv
}

// checkCheckpointNeverExported: an export holds history records only.
func checkCheckpointNeverExported(e *env) {
	t := e.t
	t.Helper()
	var out bytes.Buffer
	_, err := e.repo.Export(e.ctx, &out, tract.ExportOptions{All: true})
	e.must(err)
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.Contains(line, `"kind":"tract"`) && !strings.Contains(line, `"kind":"blob"`) && !strings.Contains(line, `"kind":"commit"`) &&
			!strings.Contains(line, `"kind":"ref"`) && !strings.Contains(line, `"kind":"lineage-export"`) && !strings.Contains(line, `"kind":"annotation"`) {
			t.Fatalf("export wrote a record that is not history: %s", line)
		}
	}

}

// checkCheckpointGoes: a checkpoint goes with its head (the branch reset
// to the root and the rest collected) and with its viewer (tract rm).
func checkCheckpointGoes(e *env, tractID string) {
	t := e.t
	t.Helper()
	log, err := e.repo.Log(e.ctx, "main", tract.LogOptions{})
	e.must(err)
	_, err = e.repo.Reset(e.ctx, "main", string(log[len(log)-1].Hash))
	e.must(err)
	e.clock.Advance(tract.DefaultRetention * 2)
	rep, err := e.repo.GC(e.ctx, tract.GCOptions{Retention: 0})
	e.must(err)
	if len(rep.Removed) == 0 {
		t.Fatal("gc removed nothing")
	}
	if cv, err := e.store.CompiledView(e.ctx, tractID, "o200k_base", tract.ViewHeader); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("checkpoint at a collected head %s survived gc: %v", cv.Head.Short(), err)
	}

	// Gone with its viewer.
	_, err = e.repo.CompileCold(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	e.must(e.repo.RemoveTract(e.ctx, "main"))
	if _, err := e.store.CompiledView(e.ctx, tractID, "o200k_base", tract.ViewHeader); !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("checkpoint of a removed tract survived: %v", err)
	}
}

// sameOpenAI checks that r's compile of main written as it is read writes what WriteOpenAI
// writes of want.
func sameOpenAI(t *testing.T, r *tract.Repo, want tract.Result) {
	t.Helper()
	var got, exp bytes.Buffer
	if err := compileOpenAI(context.Background(), r, &got, "main", tract.CompileOptions{}, "  "); err != nil {
		t.Fatal(err)
	}
	if err := wire.WriteOpenAI(&exp, want, "  "); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), exp.Bytes()) {
		t.Fatalf("streamed compile wrote %d bytes unlike WriteOpenAI's %d:\n%.400s\nwant\n%.400s", got.Len(), exp.Len(), got.Bytes(), exp.Bytes())
	}
}

// messageTexts are a compile's message contents.
func messageTexts(res tract.Result) []string {
	texts := make([]string, len(res.Messages))
	for i, m := range res.Messages {
		texts[i] = m.Content
	}
	return texts
}

// testUncounted: a commit made by a process that never loaded the
// tokenizer has no stored count; a cold compile from the checkpoint that
// prints no token figure (Uncounted) leaves it uncounted — no tokenizer
// call, Tokens -1 for it and the result, every message as a cold compile
// has it — while a budget still counts it, and a compile without
// Uncounted counts it as always.
func testUncounted(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.importNumbered(20)
	_, err := e.repo.CompileCold(e.ctx, "main", tract.CompileOptions{}) // the checkpoint
	e.must(err)
	var calls atomic.Int64
	counting := func(enc string) (tokens.Counter, error) {
		c, err := tokens.Get(enc)
		if err != nil {
			return nil, err
		}
		return tokens.Func{Name: c.Encoding(), Fn: func(s string) int { calls.Add(1); return c.Count(s) }}, nil
	}
	writer := tract.New(e.store, tract.Options{Tokenizer: counting, Now: e.clock.Now})
	_, err = writer.Commit(e.ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "assistant", Text: "one more"}})
	e.must(err)
	if calls.Load() != 0 {
		t.Fatalf("the commit counted tokens (%d calls): the test needs an uncounted blob", calls.Load())
	}

	fresh := tract.New(messagesOnly{noHistory{e.store}}, tract.Options{Tokenizer: counting})
	got, err := fresh.CompileCold(e.ctx, "main", tract.CompileOptions{Uncounted: true})
	e.must(err)
	last := got.Messages[len(got.Messages)-1]
	if calls.Load() != 0 || got.Tokens != -1 || last.Tokens != -1 || last.Content != "one more" {
		t.Fatalf("uncounted compile: %d tokenizer calls, tokens %d, last message %q with %d tokens; want 0, -1, \"one more\" with -1",
			calls.Load(), got.Tokens, last.Content, last.Tokens)
	}
	// A budget needs the count.
	budgeted, err := fresh.CompileCold(e.ctx, "main", tract.CompileOptions{Uncounted: true, Budget: 100_000})
	e.must(err)
	if calls.Load() == 0 || budgeted.Tokens <= 0 || budgeted.Messages[len(budgeted.Messages)-1].Tokens <= 0 {
		t.Fatalf("budgeted compile: %d tokenizer calls, tokens %d", calls.Load(), budgeted.Tokens)
	}
	// Everything else as a cold compile has it.
	cold, err := tract.New(e.store, tract.Options{NoCheckpoints: true}).CompileCold(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	got.Messages[len(got.Messages)-1].Tokens = cold.Messages[len(cold.Messages)-1].Tokens
	got.Tokens = cold.Tokens
	if !reflect.DeepEqual(got, cold) {
		t.Fatalf("uncounted compile differs from cold beyond its counts:\n%+v\n%+v", got, cold)
	}
}

// compileOpenAI writes the openai format of r's cold compile of tractName
// as `tract compile --format openai` does: wire's writer over the compile
// handed out as it is read.
func compileOpenAI(ctx context.Context, r *tract.Repo, w io.Writer, tractName string, o tract.CompileOptions, indent string) error {
	return r.CompileMessages(ctx, tractName, o, func(ms *tract.Messages) error { return wire.WriteOpenAIMessages(w, ms, indent) })
}

// viewLookups counts the reads of a stored compile checkpoint.
type viewLookups struct {
	tract.Store
	n *atomic.Int64
}

func (s viewLookups) CompiledView(ctx context.Context, viewer, encoding string, part tract.ViewPart) (tract.CompiledView, error) {
	s.n.Add(1)
	return s.Store.CompiledView(ctx, viewer, encoding, part)
}

// lendingViewLookups is viewLookups of a store that lends its checkpoints.
type lendingViewLookups struct{ viewLookups }

func (s lendingViewLookups) LendCompiledView(ctx context.Context, viewer, encoding string, fn func(tract.CompiledView) error) error {
	s.n.Add(1)
	return s.Store.(tract.ViewLender).LendCompiledView(ctx, viewer, encoding, fn)
}

// testCheckpointLookedUpOnce: a cold compile, whether it returns a result
// or hands out a message sequence, looks the stored checkpoint up once
// (there is none yet: nothing more to read), and a compile the stored
// checkpoint serves reads it once (its header and then its messages from
// a store that lends them).
func testCheckpointLookedUpOnce(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.importNumbered(20)
	var n atomic.Int64
	var store tract.Store = viewLookups{e.store, &n}
	reads := 1
	if _, ok := e.store.(tract.ViewLender); ok {
		store, reads = lendingViewLookups{viewLookups{e.store, &n}}, 2
	}
	r := tract.New(store, tract.Options{Now: e.clock.Now})
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		o := tract.CompileOptions{Encoding: enc}
		var err error
		if enc == "o200k_base" {
			err = compileOpenAI(e.ctx, r, io.Discard, "main", o, "")
		} else {
			_, err = r.CompileCold(e.ctx, "main", o)
		}
		e.must(err)
		if got := n.Swap(0); got != 1 {
			t.Fatalf("cold compile (%s) looked the stored checkpoint up %d times, want 1", enc, got)
		}
	}
	e.must(compileOpenAI(e.ctx, r, io.Discard, "main", tract.CompileOptions{}, ""))
	if got := n.Swap(0); got != int64(reads) {
		t.Fatalf("a compile the checkpoint serves read it %d times, want %d", got, reads)
	}
}
