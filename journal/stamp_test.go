package journal

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
)

// A writer reads the clock only once it holds the agency lock, so writers
// that queue on the lock stamp in the order they write. Stamped before the
// lock, a writer that waited could put an older second above a newer one
// in a newest-first log, and enough such pairs tip the log's orientation
// vote (seen under Wine: twelve processes appending, the seed entry ended
// up in the middle). Append and Log are checked; WriteDaily's agency union
// and transfers get their time from the same updateAgency.
func TestWritersReadTheClockHoldingTheLock(t *testing.T) {
	root := tempRoot(t)
	write(t, root, map[string]string{".git": "<dir>", ".clia/agents/s/s@ws.agency.triad.json": `{"entries":[]}`})
	writes := map[string]func(Options) error{
		"Append": func(o Options) error {
			_, err := Append(context.Background(), o, Entry{Slug: "s", Note: "n", Signature: "-x"})
			return err
		},
		"Log": func(o Options) error {
			_, err := Log(context.Background(), o, LogEntry{Entry: Entry{Slug: "s", Note: "m", Signature: "-x"}})
			return err
		},
	}
	for _, name := range []string{"Append", "Log"} {
		t.Run(name, func(t *testing.T) {
			lock, err := fsx.LockFile(context.Background(), filepath.Join(root, ".clia/agents/s", agents.AgencyLockName))
			if err != nil {
				t.Fatal(err)
			}
			var held atomic.Bool
			held.Store(true)
			var early atomic.Int32
			clock := func() time.Time {
				if held.Load() {
					early.Add(1)
				}
				return time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
			}
			done := make(chan error, 1)
			go func() { done <- writes[name](Options{Agents: agents.Options{Path: root}, Now: clock}) }()
			// Give a writer that stamps first the time to do it; one that
			// waits for the lock cannot read the clock however long this is.
			time.Sleep(100 * time.Millisecond)
			held.Store(false)
			lock.Unlock()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if n := early.Load(); n > 0 {
				t.Fatalf("%s read the clock %d time(s) while another writer held the lock", name, n)
			}
		})
	}
}
