package journal

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// worker runs in a child process: n journal writes for slug s at root,
// each with a distinct note. It prints one line on stdout after each write
// it made, so a parent can wait for real progress instead of a fixed delay.
func worker(root, name string, n int) error {
	opts := Options{Agents: agents.Options{Path: root}}
	for i := 0; i < n || n < 0; i++ {
		e := Entry{Slug: "s", Note: fmt.Sprintf("%s write %d", name, i), Signature: "-w"}
		if _, err := Append(context.Background(), opts, e); err != nil {
			return err
		}
		fmt.Println("wrote", i)
	}
	return nil
}

// workers are the jobs a child process of this test binary can run, by
// name: n rounds (forever when n < 0), one line on stdout after each.
var workers = map[string]func(root, name string, n int) error{
	"append": worker,
	"rich":   richWorker,
}

func TestMain(m *testing.M) {
	if spec := os.Getenv("JOURNAL_WORKER"); spec != "" {
		parts := strings.Split(spec, "|")
		n, _ := strconv.Atoi(parts[3])
		if err := workers[parts[0]](parts[1], parts[2], n); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// workerCmd is a child process running the worker job named kind.
func workerCmd(t testing.TB, kind, root, name string, n int) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("JOURNAL_WORKER=%s|%s|%s|%d", kind, root, name, n))
	return cmd
}

// startWriting starts cmd and returns once it has reported its first write,
// calling check while it waits. A kill window that opens only then cannot
// close before anything was written: on a loaded machine process start-up
// alone can outlast a fixed delay.
func startWriting(t *testing.T, cmd *exec.Cmd, check func()) {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	progress := bufio.NewReader(out)
	first := make(chan error, 1)
	go func() {
		_, err := progress.ReadString('\n')
		first <- err
		io.Copy(io.Discard, progress)
	}()
	for {
		select {
		case err := <-first:
			if err != nil {
				cmd.Wait()
				t.Fatalf("the writer stopped before its first write: %v %s", err, stderr.String())
			}
			return
		default:
			check()
		}
	}
}

// 12 processes × 20 writes started together on one agency document:
// exactly 240 entries, valid JSON, earlier entries unchanged.
func TestConcurrentProcessesLoseNothing(t *testing.T) {
	root := tempRoot(t)
	const procs = 12
	each := 20
	if testing.Short() {
		each = 8 // every process still meets the others; fewer writes each
	}
	file := ".clia/agents/s/s@ws.agency.triad.json"
	seed := `{"schemaVersion":"0.4.0","entries":[{"id":"seed","timestamp":"2000-01-01T00:00:00Z","x":1.0}],"keep":{"a":[1,2]}}`
	write(t, root, map[string]string{".git": "<dir>", file: seed})
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	start := make(chan struct{})
	for i := 0; i < procs; i++ {
		cmd := workerCmd(t, "append", root, fmt.Sprintf("p%d", i), each)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("%v: %s", err, out)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	doc := readDoc(t, filepath.Join(root, file))
	items := doc.Get("entries").Items
	if len(items) != procs*each+1 {
		t.Fatalf("%d entries, want %d", len(items), procs*each+1)
	}
	seen := map[string]bool{}
	for _, it := range items {
		seen[it.Str("summary")] = true
	}
	for i := 0; i < procs; i++ {
		for j := 0; j < each; j++ {
			if !seen[fmt.Sprintf("p%d write %d", i, j)] {
				t.Errorf("lost p%d write %d", i, j)
			}
		}
	}
	seedDoc, _ := triad.Decode("seed", []byte(seed))
	if !triad.Equal(items[len(items)-1], seedDoc.Get("entries").Items[0]) && !triad.Equal(items[0], seedDoc.Get("entries").Items[0]) {
		t.Error("the seed entry changed")
	}
	if !triad.Equal(doc.Get("keep"), seedDoc.Get("keep")) {
		t.Error("an unrelated key changed")
	}
}

// A writer killed with SIGKILL at random points never leaves a torn or
// empty document: every snapshot read during the run parses, and the entry
// count never goes down.
func TestKilledWriterNeverTearsTheFile(t *testing.T) {
	root := tempRoot(t)
	file := filepath.Join(root, ".clia/agents/s/s@ws.agency.triad.json")
	var entries strings.Builder
	for i := 0; i < 300; i++ {
		if i > 0 {
			entries.WriteString(",")
		}
		fmt.Fprintf(&entries, `{"id":"e%d","summary":"%s"}`, i, strings.Repeat("x", 200))
	}
	write(t, root, map[string]string{".git": "<dir>", ".clia/agents/s/s@ws.agency.triad.json": `{"entries":[` + entries.String() + `]}`})
	rng := rand.New(rand.NewSource(1))
	snapshots, last := 0, 0
	for round := 0; round < 12; round++ {
		cmd := workerCmd(t, "append", root, fmt.Sprintf("r%d", round), -1)
		startWriting(t, cmd, func() {
			last = checkSnapshot(t, file, last)
			snapshots++
		})
		deadline := time.Now().Add(time.Duration(20+rng.Intn(120)) * time.Millisecond)
		for time.Now().Before(deadline) {
			last = checkSnapshot(t, file, last)
			snapshots++
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		last = checkSnapshot(t, file, last)
	}
	if last <= 300 {
		t.Errorf("no write happened (%d entries)", last)
	}
	t.Logf("%d snapshots, %d entries at the end", snapshots, last)
}

// checkSnapshot reads file as lineage's readers do (fsx.ReadRegular: on
// Windows it shares delete access and retries the instant of a replace,
// where a plain os.ReadFile gets a sharing violation) and checks it parses
// with no fewer entries than last.
func checkSnapshot(t *testing.T, file string, last int) int {
	t.Helper()
	b, err := fsx.ReadRegular(file, -1)
	if err != nil {
		t.Fatalf("snapshot unreadable: %v", err)
	}
	v, err := triad.Decode(file, b)
	if err != nil {
		t.Fatalf("torn snapshot (%d bytes): %v", len(b), err)
	}
	n := len(v.Get("entries").Items)
	if n < last {
		t.Fatalf("entries went from %d to %d", last, n)
	}
	return n
}
