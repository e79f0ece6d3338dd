package sessions

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// findStoreSessions and findStorePerSession size the store `sessions find`
// is measured over: 1,000 sessions of 1,000 messages, 1M in all (the
// issue's target: ≤ 8× `lineage --version` as a whole process).
const (
	findStoreSessions   = 1000
	findStorePerSession = 1000
)

// findStore is a sessions store of n sessions of per messages each, built
// at path unless a finished one is there (path+".done"): twelve words a
// message from a 2,000-word vocabulary; one message in 10,000 also holds
// "zebrafish parser" (100 such in 1M).
func findStore(tb testing.TB, path string, n, per int) {
	tb.Helper()
	if _, err := os.Stat(path + ".done"); err == nil {
		return
	}
	os.Remove(path)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, sqlite.Options{Create: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	repo := tract.New(st, tract.Options{Now: func() time.Time { return time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC) }})
	vocab := make([]string, 2000)
	for i := range vocab {
		vocab[i] = "w" + strconv.Itoa(i)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for s := range n {
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", s, s)
		name := TractName(Claude, id)
		if _, err := repo.NewTract(ctx, name); err != nil {
			tb.Fatal(err)
		}
		started := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(s) * time.Hour)
		if err := repo.SetTractMeta(ctx, name, map[string]string{MetaHarness: string(Claude), MetaSession: id,
			MetaCwd: "/repo/" + strconv.Itoa(s%10), MetaStarted: started.Format(time.RFC3339Nano), MetaTitle: "session " + strconv.Itoa(s),
			MetaTokens: "1000", MetaRecords: strconv.Itoa(per)}); err != nil {
			tb.Fatal(err)
		}
		reqs := make([]tract.CommitRequest, per)
		for m := range per {
			words := make([]string, 12)
			for w := range words {
				words[w] = vocab[rng.IntN(len(vocab))]
			}
			if (s*per+m)%10000 == 5000 {
				words[3], words[7] = "zebrafish", "parser"
			}
			role := "user"
			if m%2 == 1 {
				role = "assistant"
			}
			key := "m" + strconv.Itoa(m)
			meta := fmt.Sprintf(`{"harness":"claude","session":%q,"keys":[%q],"kind":"message","time":%q}`, id, key, started.Add(time.Duration(m)*time.Second).Format(time.RFC3339Nano))
			reqs[m] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: role, Text: strings.Join(words, " ")}, Meta: []byte(meta)}
		}
		if _, err := repo.AppendTo(ctx, name, tract.DefaultBranch, reqs); err != nil {
			tb.Fatal(err)
		}
	}
	repo.Wait()
	if err := os.WriteFile(path+".done", nil, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// findStorePath is where the 1M-message store is kept between runs:
// $LINEAGE_BENCH_SESSIONS_STORE (so `lineage sessions find --store` can be
// timed as a whole process against it, see docs/sessions.md), else a
// temporary folder.
func findStorePath(b *testing.B) string {
	if p := os.Getenv("LINEAGE_BENCH_SESSIONS_STORE"); p != "" {
		return p
	}
	return filepath.Join(b.TempDir(), "sessions.db")
}

// BenchmarkSessionsFind1M is `sessions find zebrafish parser` in process
// over 1,000 sessions of 1,000 messages (100 hits), from a freshly opened
// store each time, as a command opens it.
func BenchmarkSessionsFind1M(b *testing.B) {
	path := findStorePath(b)
	findStore(b, path, findStoreSessions, findStorePerSession)
	ctx := context.Background()
	for b.Loop() {
		st, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		hits, err := Find(ctx, tract.New(st, tract.Options{}), FindOptions{Text: "zebrafish parser"})
		st.Close()
		if err != nil {
			b.Fatal(err)
		}
		if len(hits) != findStoreSessions*findStorePerSession/10000 {
			b.Fatalf("%d hits, want %d", len(hits), findStoreSessions*findStorePerSession/10000)
		}
	}
}

// TestFindStoreShape checks the benchmark's store on a small scale: the
// hits are the planted messages, each in its session.
func TestFindStoreShape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	findStore(t, path, 20, 1000)
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	hits, err := Find(context.Background(), tract.New(st, tract.Options{}), FindOptions{Text: "zebrafish parser"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Key != "m0" || hits[0].Session.Tract == hits[1].Session.Tract {
		t.Fatalf("hits %+v", hits)
	}
}
