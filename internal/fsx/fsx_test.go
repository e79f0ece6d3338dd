package fsx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/agentlineage/lineage/internal/platformtest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	if err := WriteFileAtomic(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "two" {
		t.Fatalf("content = %q, %v", b, err)
	}
	platformtest.Perm(t, p, 0o600)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestWriteFileAtomicFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	// The target is a non-empty directory: the rename fails.
	target := filepath.Join(dir, "busy")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteFileAtomic(target, []byte("data"), 0o644)
	if err == nil || !strings.Contains(err.Error(), target) {
		t.Fatalf("err = %v, want an error naming %s", err, target)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "f"), nil, 0o644); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

func TestIDOfSeesThroughSymlinks(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	os.WriteFile(f, []byte("x"), 0o644)
	platformtest.Symlink(t, f, filepath.Join(dir, "link"))
	os.WriteFile(filepath.Join(dir, "g"), []byte("x"), 0o644)
	id := func(p string) FileID {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := IDOf(p, fi)
		if !ok {
			t.Skip("no file identity on this platform")
		}
		return got
	}
	if id(f) != id(filepath.Join(dir, "link")) {
		t.Error("a symlink and its target have different identities")
	}
	if id(f) == id(filepath.Join(dir, "g")) {
		t.Error("two files share an identity")
	}
}

// lockWorker is run in a child process by TestLockFileAcrossProcesses: it
// increments the number in a counter file n times, each under the lock.
func lockWorker(lockPath, counter string, n int) error {
	for i := 0; i < n; i++ {
		l, err := LockFile(context.Background(), lockPath)
		if err != nil {
			return err
		}
		b, _ := os.ReadFile(counter)
		v, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if err := WriteFileAtomic(counter, []byte(strconv.Itoa(v+1)), 0o644); err != nil {
			return err
		}
		if err := l.Unlock(); err != nil {
			return err
		}
	}
	return nil
}

func TestMain(m *testing.M) {
	if args := os.Getenv("FSX_LOCK_WORKER"); args != "" {
		parts := strings.Split(args, "|")
		n, _ := strconv.Atoi(parts[2])
		if err := lockWorker(parts[0], parts[1], n); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestLockFileAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	lockPath, counter := filepath.Join(dir, "c.lock"), filepath.Join(dir, "c")
	const procs, each = 6, 40
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for i := 0; i < procs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("FSX_LOCK_WORKER=%s|%s|%d", lockPath, counter, each))
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
	b, _ := os.ReadFile(counter)
	if got := strings.TrimSpace(string(b)); got != strconv.Itoa(procs*each) {
		t.Fatalf("counter = %s, want %d: increments were lost", got, procs*each)
	}
	if _, err := os.Lstat(lockPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file is left: %v", err)
	}
}

func TestLockFileHonoursContext(t *testing.T) {
	p := filepath.Join(t.TempDir(), "l")
	held, err := LockFile(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LockFile(ctx, p); err == nil {
		t.Fatal("took a lock that another holder has")
	}
}

func TestRetryOnTransientErrors(t *testing.T) {
	busy, broken := errors.New("busy"), errors.New("broken")
	transient := func(err error) bool { return err == busy }
	run := func(failures []error) (calls int, slept []time.Duration, err error) {
		err = retry(func() error {
			calls++
			if calls <= len(failures) {
				return failures[calls-1]
			}
			return nil
		}, transient, func(d time.Duration) { slept = append(slept, d) }, ReplaceDeadline)
		return
	}
	calls, slept, err := run([]error{busy, busy, busy})
	if err != nil || calls != 4 {
		t.Errorf("three busy then ok: calls = %d, err = %v; want 4, nil", calls, err)
	}
	if diff := cmp.Diff([]time.Duration{time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond}, slept); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
	if calls, _, err := run([]error{busy, broken, busy}); err != broken || calls != 2 {
		t.Errorf("a lasting error: calls = %d, err = %v; want 2, broken", calls, err)
	}
	always := make([]error, 1000)
	for i := range always {
		always[i] = busy
	}
	calls, slept, err = run(always)
	if err != busy {
		t.Errorf("busy forever: calls = %d, err = %v; want busy", calls, err)
	}
	var total time.Duration
	for _, d := range slept {
		total += d
		if d > 100*time.Millisecond {
			t.Errorf("a delay of %v", d)
		}
	}
	if total != ReplaceDeadline {
		t.Errorf("busy forever waited %v in all, want the deadline, %v", total, ReplaceDeadline)
	}
}

// TestReadersAndAWriterMeet replaces a file over and over while readers
// read it, each read a moment apart as processes sharing a state file do:
// on Windows the replace and the opens collide (a sharing violation for an
// instant), and both sides retry within their deadlines, so no read or
// write fails and every read sees a whole version.
func TestReadersAndAWriterMeet(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.json")
	version := func(i int) []byte { return []byte(strings.Repeat(fmt.Sprintf("version %04d;", i), 200)) }
	if err := WriteFileAtomic(p, version(0), 0o644); err != nil {
		t.Fatal(err)
	}
	const writes, readers = 100, 2
	done := make(chan struct{})
	errs := make(chan error, readers+1)
	var wg sync.WaitGroup
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				data, err := ReadRegular(p, 1<<20)
				if err != nil {
					errs <- err
					return
				}
				time.Sleep(5 * time.Millisecond)
				if len(data) != len(version(0)) || !bytes.Equal(data, bytes.Repeat(data[:13], 200)) {
					errs <- fmt.Errorf("a torn read: %.40q…", data)
					return
				}
			}
		}()
	}
	for i := 1; i <= writes; i++ {
		if err := WriteFileAtomic(p, version(i), 0o644); err != nil {
			errs <- err
			break
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A lock file planted as a symlink (or anything but a regular file) is
// refused, and nothing is created where the link points.
func TestLockFileRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	link := filepath.Join(dir, "state.lock")
	platformtest.Symlink(t, outside, link)
	if l, err := LockFile(context.Background(), link); err == nil {
		l.Unlock()
		t.Fatal("a symlinked lock file was accepted")
	} else if !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("error = %v", err)
	}
	if _, err := os.Lstat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link's target was created: %v", err)
	}
	sub := filepath.Join(dir, "dir.lock")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if l, err := LockFile(context.Background(), sub); err == nil {
		l.Unlock()
		t.Fatal("a directory lock file was accepted")
	}
}

// Unlock removes the lock file, and a holder that waited while the previous
// one removed it starts over on a new file, so removal lets nobody in twice
// (TestLockFileAcrossProcesses counts the increments under contention).
func TestLockFileLeavesNoFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	first, err := LockFile(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *Lock)
	go func() {
		l, err := LockFile(context.Background(), p)
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	time.Sleep(20 * time.Millisecond) // the second one opens the file and waits
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	second := <-got
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatalf("the second holder holds a removed file: %v", err)
	}
	held, _ := second.f.Stat()
	if !os.SameFile(fi, held) {
		t.Fatal("the second holder's file is not the one at the path")
	}
	if err := second.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file is left after Unlock: %v", err)
	}
}
