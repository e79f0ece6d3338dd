package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/postgres"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestMigrateConcurrently: stores opened at once on an empty schema
// migrate it once (the advisory lock), and all of them work.
func TestMigrateConcurrently(t *testing.T) {
	cfg, _ := freshSchema(t)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := postgres.OpenConfig(context.Background(), cfg, postgres.Options{Create: true})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s := openIn(t, cfg, postgres.Options{})
	var version, rows int
	if err := s.Pool().QueryRow(context.Background(), `SELECT max(version), count(*) FROM schema_version`).Scan(&version, &rows); err != nil {
		t.Fatal(err)
	}
	if version != postgres.SchemaVersion || rows != 1 {
		t.Fatalf("schema_version has %d rows, version %d; want 1 row, version %d", rows, version, postgres.SchemaVersion)
	}
}

func TestOpenWithoutSchema(t *testing.T) {
	cfg, _ := freshSchema(t)
	_, err := postgres.OpenConfig(context.Background(), cfg, postgres.Options{})
	if !errors.Is(err, tract.ErrNotFound) {
		t.Fatalf("open of an empty database without Create: %v", err)
	}
	s := openIn(t, cfg, postgres.Options{Create: true})
	if _, err := s.Pool().Exec(context.Background(), `UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	_, err = postgres.OpenConfig(context.Background(), cfg, postgres.Options{})
	if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer than this lineage understands") {
		t.Fatalf("open of a newer schema: %v", err)
	}
}

func TestPoolSize(t *testing.T) {
	cfg, _ := freshSchema(t)
	openIn(t, cfg, postgres.Options{Create: true})
	if s := openIn(t, cfg, postgres.Options{MaxConns: 3}); s.Pool().Config().MaxConns != 3 {
		t.Fatalf("MaxConns %d, want 3", s.Pool().Config().MaxConns)
	}
	c := cfg.Copy()
	c.MaxConns = 7 // as pool_max_conns=7 in the URL sets it
	if s := openIn(t, c, postgres.Options{}); s.Pool().Config().MaxConns != 7 {
		t.Fatalf("MaxConns %d, want 7", s.Pool().Config().MaxConns)
	}
}

// TestRefCompareAndSwapRaces: of many transactions creating one ref, or
// moving it from one value, exactly one wins; the others see "branch moved".
func TestRefCompareAndSwapRaces(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if err := s.Update(ctx, func(tx tract.Tx) error {
		return tx.CreateTract(ctx, tract.Tract{ID: "t1", Name: "one"})
	}); err != nil {
		t.Fatal(err)
	}
	race := func(old string) (won, moved int) {
		const n = 8
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.Update(ctx, func(tx tract.Tx) error {
					return tx.UpdateRef(ctx, tract.RefUpdate{Tract: "t1", Name: "main", Old: old, New: fmt.Sprintf("%s-%d", old, i)})
				})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					won++
				case errors.Is(err, tract.ErrBranchMoved):
					moved++
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		return won, moved
	}
	if won, moved := race(""); won != 1 || moved != 7 {
		t.Fatalf("creating: %d won, %d moved", won, moved)
	}
	ref, err := s.Ref(ctx, "t1", "main")
	if err != nil {
		t.Fatal(err)
	}
	if won, moved := race(ref.Value); won != 1 || moved != 7 {
		t.Fatalf("moving: %d won, %d moved", won, moved)
	}
	log, _ := s.Reflog(ctx, tract.ReflogQuery{Tract: "t1"})
	if len(log) != 2 {
		t.Fatalf("reflog has %d entries, want 2 (losers write none)", len(log))
	}
}

// TestUpdateRetriesDeadlock: two transactions lock two refs in opposite
// orders; PostgreSQL aborts one with a deadlock (40P01) and Update runs it
// again, so both succeed.
func TestUpdateRetriesDeadlock(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if err := s.Update(ctx, func(tx tract.Tx) error {
		for _, name := range []string{"a", "b"} {
			if err := tx.UpdateRef(ctx, tract.RefUpdate{Tract: "t1", Name: name, New: "0"}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var both sync.WaitGroup
	both.Add(2)
	var runs atomic.Int32
	move := func(first, second string) error {
		var once sync.Once
		return s.Update(ctx, func(tx tract.Tx) error {
			runs.Add(1)
			r1, err := tx.Ref(ctx, "t1", first)
			if err != nil {
				return err
			}
			once.Do(func() { both.Done(); both.Wait() }) // both hold their first lock
			r2, err := tx.Ref(ctx, "t1", second)
			if err != nil {
				return err
			}
			if err := tx.UpdateRef(ctx, tract.RefUpdate{Tract: "t1", Name: first, Old: r1.Value, New: r1.Value + "+"}); err != nil {
				return err
			}
			return tx.UpdateRef(ctx, tract.RefUpdate{Tract: "t1", Name: second, Old: r2.Value, New: r2.Value + "+"})
		})
	}
	errs := make(chan error, 2)
	go func() { errs <- move("a", "b") }()
	go func() { errs <- move("b", "a") }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if runs.Load() < 3 {
		t.Fatalf("fn ran %d times; a deadlock should have made one run again", runs.Load())
	}
	for _, name := range []string{"a", "b"} {
		if ref, _ := s.Ref(ctx, "t1", name); ref.Value != "0++" {
			t.Errorf("ref %s = %q, want 0++", name, ref.Value)
		}
	}
}

// TestUpdateRetriesSerializationFailure: an error carrying SQLSTATE 40001
// (what a distributed PostgreSQL-compatible database reports) makes Update
// run fn again; other errors do not.
func TestUpdateRetriesSerializationFailure(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	runs := 0
	err := s.Update(ctx, func(tx tract.Tx) error {
		runs++
		if runs < 3 {
			return fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: "40001", Message: "could not serialize access"})
		}
		return tx.CreateTract(ctx, tract.Tract{ID: "t1", Name: "one"})
	})
	if err != nil || runs != 3 {
		t.Fatalf("Update = %v after %d runs", err, runs)
	}
	runs = 0
	boom := errors.New("boom")
	if err := s.Update(ctx, func(tract.Tx) error { runs++; return boom }); !errors.Is(err, boom) || runs != 1 {
		t.Fatalf("Update = %v after %d runs", err, runs)
	}
	if !postgres.Retryable(&pgconn.PgError{Code: "40P01"}) || postgres.Retryable(&pgconn.PgError{Code: "23505"}) {
		t.Fatal("Retryable")
	}
}

// TestBulkWrites: an import large enough to go through COPY (with repeated
// contents, counted tokens, and blobs that already exist) reads back as
// the same history as small writes give.
func TestBulkWrites(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r := tract.New(s, tract.Options{CountTokens: true})
	if _, _, err := r.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: "m 3"}}); err != nil {
		t.Fatal(err)
	}
	const n = 1200
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprintf("m %d", i%700)}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	res, err := tract.New(s, tract.Options{}).CompileCold(ctx, "main", tract.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != n+1 || res.Messages[n].Content != fmt.Sprintf("m %d", (n-1)%700) {
		t.Fatalf("compiled %d messages, last %+v", len(res.Messages), res.Messages[len(res.Messages)-1])
	}
	blobs := 0
	if err := s.ScanBlobs(ctx, func(tract.Blob) error { blobs++; return nil }); err != nil || blobs != 700 {
		t.Fatalf("%d blobs (%v), want 700", blobs, err)
	}
	b, _ := tract.NewBlob(tract.Content{Type: tract.TypeMessage, Role: "user", Text: "m 3"})
	got, err := s.Blobs(ctx, []tract.Hash{b.Hash}, "o200k_base")
	if err != nil || len(got) != 1 || got[0].Tokens <= 0 {
		t.Fatalf("tokens of a blob stored before the import: %+v %v", got, err)
	}
	rep, err := r.Verify(ctx)
	if err != nil || len(rep.Damage) != 0 || rep.Commits != n+1 {
		t.Fatalf("verify %+v %v", rep, err)
	}
}

// TestPutBlobsRecordsTokensOfExistingBlob: a blob stored without a count
// gets one when it is put again with one.
func TestPutBlobsRecordsTokensOfExistingBlob(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	b, _ := tract.NewBlob(tract.Content{Type: tract.TypeMessage, Role: "user", Text: "hi"})
	for _, put := range []tract.Blob{b, {Hash: b.Hash, Data: b.Data, Tokens: 5, Encoding: "cl100k_base"}, {Hash: b.Hash, Data: b.Data, Tokens: 6, Encoding: "future"}} {
		if err := s.Update(ctx, func(tx tract.Tx) error { return tx.PutBlobs(ctx, put) }); err != nil {
			t.Fatal(err)
		}
	}
	for enc, want := range map[string]int{"cl100k_base": 5, "future": 6, "o200k_base": -1} {
		if got, _ := s.Blobs(ctx, []tract.Hash{b.Hash}, enc); len(got) != 1 || got[0].Tokens != want {
			t.Errorf("tokens in %s: %+v, want %d", enc, got, want)
		}
	}
}
