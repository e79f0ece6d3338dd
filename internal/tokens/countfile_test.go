package tokens

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A count file serves what an earlier compile counted, so the tokenizer is
// not used again; a damaged file is only an empty cache.
func TestCountFileRemembersAcrossOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "token-counts.json")
	calls := 0
	c := Func{Name: "test", Fn: func(s string) int { calls++; return len(s) }}
	clearMemo()
	f := OpenCountFile(path)
	if n := Shared.CountKept(c, f, "hello world"); n != 11 || calls != 1 {
		t.Fatalf("count %d, %d calls", n, calls)
	}
	if err := f.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	clearMemo()
	if n := Shared.CountKept(c, OpenCountFile(path), "hello world"); n != 11 || calls != 1 {
		t.Fatalf("second process: count %d, %d tokenizer calls (want the file's)", n, calls)
	}
	data, _ := os.ReadFile(path)
	if want := `"` + countKey("test", "hello world") + `"`; !strings.Contains(string(data), want) || strings.Contains(string(data), "hello") {
		t.Fatalf("file %s does not name the text by its hash", data)
	}
	if err := os.WriteFile(path, []byte(`{"counts":{"x":-1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	clearMemo()
	if n := Shared.CountKept(c, OpenCountFile(path), "hello world"); n != 11 || calls != 2 {
		t.Fatalf("damaged file: count %d, %d calls", n, calls)
	}
}

// Processes saving at once lose no count: each save merges under a lock.
func TestCountFileConcurrentSaves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token-counts.json")
	c := Func{Name: "test", Fn: func(s string) int { return len(s) }}
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := OpenCountFile(path)
			for j := 0; j < 5; j++ {
				key := countKey(c.Encoding(), fmt.Sprintf("text %d %d", i, j))
				f.remember(key, j)
			}
			if err := f.Save(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := len(OpenCountFile(path).known); n != 80 {
		t.Fatalf("%d counts kept, want 80", n)
	}
}

func FuzzDecodeCounts(f *testing.F) {
	f.Add([]byte(`{"counts":{"o200k_base 00":3}}`))
	f.Add([]byte(`{"counts":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for k, n := range decodeCounts(data) {
			if n < 0 || len(k) > 128 {
				t.Fatalf("kept %q: %d", k, n)
			}
		}
	})
}

func clearMemo() { Shared.Reset() }
