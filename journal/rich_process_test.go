package journal

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// richWorker runs in a child process: n rounds, each an --upsert of one of
// four ids of this worker (content "<name> v<i>") and a rich entry with a
// unique summary. It prints a line after each round.
func richWorker(root, name string, n int) error {
	opts := Options{Agents: agents.Options{Path: root}}
	for i := 0; i < n || n < 0; i++ {
		up := LogEntry{Entry: Entry{Slug: "s", Note: fmt.Sprintf("%s v%d", name, i), Signature: "-w",
			ID: fmt.Sprintf("%s-u%d", name, i%4)}, Upsert: true}
		rich := LogEntry{Entry: Entry{Slug: "s", Note: fmt.Sprintf("%s rich %d", name, i), Signature: "-w"},
			Details: []string{"d"}, Participants: []string{"a", "b"},
			Links:         []Link{{Href: "https://x", Kind: "doc", Title: "X"}},
			Contributions: []Contribution{{By: "a", Type: "code", Evidence: "e, f", Weight: "2.50"}}}
		for _, e := range []LogEntry{up, rich} {
			if _, err := Log(context.Background(), opts, e); err != nil {
				return err
			}
		}
		fmt.Println("round", i)
	}
	return nil
}

// checkIDsOnce fails when an id occurs twice and returns the entries by id.
func checkIDsOnce(t *testing.T, doc *triad.Value) map[string]*triad.Value {
	t.Helper()
	byID := map[string]*triad.Value{}
	for _, it := range doc.Get("entries").Items {
		id := it.Str("id")
		if byID[id] != nil {
			t.Fatalf("id %s occurs twice", id)
		}
		byID[id] = it
	}
	return byID
}

// 8 processes × 20 rounds of an upsert and a rich entry on one agency
// document: every id once, each upserted id holds its latest content, every
// rich entry is there, and the document's other keys are unchanged.
func TestConcurrentUpsertAndRichEntries(t *testing.T) {
	root := tempRoot(t)
	const procs = 8
	rounds := 20
	if testing.Short() {
		rounds = 8 // every process still meets the others; fewer rounds each
	}
	file := ".clia/agents/s/s@ws.agency.triad.json"
	seed := `{"schemaVersion":"0.4.0","entries":[{"id":"seed","timestamp":"2000-01-01T00:00:00Z","n":1.50}],"keep":{"a":[1,2.0]}}`
	write(t, root, map[string]string{".git": "<dir>", file: seed})
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for i := 0; i < procs; i++ {
		cmd := workerCmd(t, "rich", root, fmt.Sprintf("p%d", i), rounds)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("%v: %s", err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	doc := readDoc(t, filepath.Join(root, file))
	byID := checkIDsOnce(t, doc)
	if want := 1 + procs*4 + procs*rounds; len(byID) != want {
		t.Fatalf("%d entries, want %d", len(byID), want)
	}
	rich := map[string]bool{}
	for _, it := range byID {
		rich[it.Str("summary")] = true
	}
	for p := 0; p < procs; p++ {
		for u := 0; u < 4; u++ {
			id := fmt.Sprintf("p%d-u%d", p, u)
			latest := fmt.Sprintf("p%d v%d", p, rounds-4+u)
			if got := byID[id].Str("summary"); got != latest {
				t.Errorf("%s holds %q, want the latest %q", id, got, latest)
			}
		}
		for i := 0; i < rounds; i++ {
			if !rich[fmt.Sprintf("p%d rich %d", p, i)] {
				t.Errorf("lost p%d rich %d", p, i)
			}
		}
	}
	if got := string(triad.Encode(doc.Get("keep"), triad.EncodeOptions{Compact: true})); got != `{"a":[1,2.0]}` {
		t.Errorf("an unrelated key changed: %s", got)
	}
	if got := string(triad.Encode(byID["seed"], triad.EncodeOptions{Compact: true})); got != `{"id":"seed","timestamp":"2000-01-01T00:00:00Z","n":1.50}` {
		t.Errorf("the seed entry changed: %s", got)
	}
}

// Workers killed with SIGKILL mid-run: every snapshot parses and never
// holds an id twice, and the entry count never goes down.
func TestKilledUpsertWriterNeverTearsOrDuplicates(t *testing.T) {
	root := tempRoot(t)
	file := filepath.Join(root, ".clia/agents/s/s@ws.agency.triad.json")
	write(t, root, map[string]string{".git": "<dir>", ".clia/agents/s/s@ws.agency.triad.json": `{"entries":[]}`})
	last := 0
	check := func() {
		// Read as lineage's readers do (see checkSnapshot): a plain
		// os.ReadFile meets a sharing violation on Windows at the instant
		// of a replace.
		b, err := fsx.ReadRegular(file, -1)
		if err != nil {
			t.Fatalf("snapshot unreadable: %v", err)
		}
		v, err := triad.Decode(file, b)
		if err != nil {
			t.Fatalf("torn snapshot (%d bytes): %v", len(b), err)
		}
		n := len(checkIDsOnce(t, v))
		if n < last {
			t.Fatalf("entries went from %d to %d", last, n)
		}
		last = n
	}
	for round := 0; round < 5; round++ {
		// Two workers at once, both killed: a kill can land while the other
		// holds or waits for the lock.
		var cmds []*exec.Cmd
		for w := 0; w < 2; w++ {
			cmd := workerCmd(t, "rich", root, fmt.Sprintf("r%dw%d", round, w), -1)
			startWriting(t, cmd, check)
			cmds = append(cmds, cmd)
		}
		deadline := time.Now().Add(time.Duration(10+round*10) * time.Millisecond)
		for time.Now().Before(deadline) {
			check()
		}
		for _, c := range cmds {
			c.Process.Signal(syscall.SIGKILL)
			c.Wait()
		}
		check()
	}
	if last == 0 {
		t.Fatal("no write happened")
	}
}
