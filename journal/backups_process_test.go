package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agentlineage/lineage/agents"
)

func init() { workers["cleanup"] = cleanupWorker }

// cleanupWorker runs cleanup-backups --apply on root's agent s n times.
func cleanupWorker(root, _ string, n int) error {
	opts := Options{Agents: agents.Options{Path: root}}
	for i := 0; i < n; i++ {
		if _, err := CleanupBackups(context.Background(), opts, BackupCleanup{Slug: "s", Apply: true}); err != nil {
			return err
		}
		fmt.Println("cleaned", i)
	}
	return nil
}

// Writer processes append to an agency log while cleanup processes remove
// its backups: every entry is written, the backup that is safe goes, the
// one holding an entry the log lacks stays byte for byte, and no lock or
// temporary file is left.
func TestCleanupBackupsBesideConcurrentWriters(t *testing.T) {
	root := tempRoot(t)
	dir := ".clia/agents/s/"
	unsafe := `{"schemaVersion": "0.4.0", "slug": "s", "entries": [{"id": "only-in-the-backup", "summary": "x"}]}`
	write(t, root, map[string]string{
		".git":                             "<dir>",
		dir + "s@ws.agency.triad.json":     `{"schemaVersion": "0.4.0", "slug": "s", "entries": []}`,
		dir + "s@ws.agency.triad.json.bak": `{"schemaVersion": "0.4.0", "slug": "s", "entries": []}`,
		dir + "s@ws.agency.json.bak":       unsafe,
	})
	const writers, each, cleaners, rounds = 3, 15, 2, 20
	var cmds []func() error
	for i := range writers {
		cmd := workerCmd(t, "append", root, fmt.Sprintf("w%d", i), each)
		cmds = append(cmds, func() error {
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("writer: %v: %s", err, out)
			}
			return nil
		})
	}
	for range cleaners {
		cmd := workerCmd(t, "cleanup", root, "", rounds)
		cmds = append(cmds, func() error {
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("cleanup: %v: %s", err, out)
			}
			return nil
		})
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(cmds))
	start := make(chan struct{})
	for _, run := range cmds {
		wg.Go(func() {
			<-start
			if err := run(); err != nil {
				errs <- err
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	d := filepath.Join(root, dir)
	if n := len(readDoc(t, filepath.Join(d, "s@ws.agency.triad.json")).Get("entries").Items); n != writers*each {
		t.Errorf("%d entries, want %d", n, writers*each)
	}
	if b, err := os.ReadFile(filepath.Join(d, "s@ws.agency.json.bak")); err != nil || string(b) != unsafe {
		t.Errorf("the backup holding an entry of its own: %q %v", b, err)
	}
	ents, _ := os.ReadDir(d)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[0] != "s@ws.agency.json.bak" || names[1] != "s@ws.agency.triad.json" {
		t.Errorf("left in the context: %q", names)
	}
}
