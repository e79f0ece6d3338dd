package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
	"github.com/agentlineage/lineage/tract/storetest"
)

// TestMain lets the test binary act as a writer process on a shared file,
// as a first reader of an old store (TestConcurrentUpgrade), or as a
// writer killed after its commit (TestCommitSurvivesCrash).
func TestMain(m *testing.M) {
	if db := os.Getenv(envUpgradeReader); db != "" {
		if err := readOldStore(db); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if errors.Is(err, tract.ErrOldSchema) {
				os.Exit(oldSchemaExit)
			}
			os.Exit(1)
		}
		os.Exit(0)
	}
	if db := os.Getenv(envMigrator); db != "" {
		migrateStore(db)
	}
	if db := os.Getenv(envCrashWriter); db != "" {
		commitAndCrash(db)
	}
	storetest.ProcessMain(m, func(ctx context.Context, db string) (tract.Store, error) {
		return sqlite.Open(ctx, db, sqlite.Options{})
	})
}

// TestProcesses: 8 processes × 100 appends on one branch, and appends while
// another process loops merge-from and gc, all on one SQLite file.
func TestProcesses(t *testing.T) {
	storetest.RunProcesses(t, storetest.Processes{
		New: func(t *testing.T) (string, tract.Store) {
			db, _, s := newDB(t)
			return db, s
		},
	})
}

func newDB(t *testing.T) (string, *tract.Repo, tract.Store) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "lineage.db")
	s, err := sqlite.Open(context.Background(), db, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	r := tract.New(s, tract.Options{})
	if _, _, err := r.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, r, s
}

// envCrashWriter names the store the writer of TestCommitSurvivesCrash
// commits to.
const envCrashWriter = "LINEAGE_SQLITE_CRASH_WRITER"

// commitAndCrash commits one message, prints its hash and kills its own
// process: no Close, no checkpoint, the WAL left as the commit left it.
func commitAndCrash(db string) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err == nil {
		var c tract.Commit
		c, err = tract.New(s, tract.Options{}).Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: "before the crash"}})
		if err == nil {
			fmt.Println(c.Hash)
			self, _ := os.FindProcess(os.Getpid())
			err = self.Kill()
		}
	}
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// TestCommitSurvivesCrash: a transaction that committed (synchronous=NORMAL
// in WAL mode) survives the crash of its process: the next open finds the
// commit, the branch on it, and a sound store.
func TestCommitSurvivesCrash(t *testing.T) {
	ctx := context.Background()
	db, _, s := newDB(t)
	s.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envCrashWriter+"="+db)
	out, err := cmd.Output()
	var ee *exec.ExitError
	// Windows has no signals: a process killed (TerminateProcess) just
	// exits, with status 1 from Go's Kill, so there the kill is told from
	// the writer's own exit 1 by the error message only the latter prints.
	killed := errors.As(err, &ee) && !ee.Exited()
	if runtime.GOOS == "windows" {
		killed = errors.As(err, &ee) && ee.ExitCode() == 1 && len(ee.Stderr) == 0
	}
	if !killed || len(out) == 0 {
		t.Fatalf("the writer was not killed after its commit: %v %s", err, out)
	}
	if _, err := os.Stat(db + "-wal"); err != nil {
		t.Fatalf("the crash should leave the WAL behind: %v", err)
	}
	ro, err := sqlite.Open(ctx, db, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	r := tract.New(ro, tract.Options{})
	head, err := r.Show(ctx, "main", "HEAD")
	if err != nil || string(head.Commit.Hash)+"\n" != string(out) || head.Content == nil || head.Content.Text != "before the crash" {
		t.Fatalf("HEAD after the crash = %v %+v (%v), want the commit %s", head.Commit.Hash, head.Content, err, out)
	}
	if rep, err := r.Verify(ctx); err != nil || len(rep.Damage) != 0 {
		t.Fatalf("verify after the crash: %+v, %v", rep, err)
	}
}
