// Package swaptest is test-only: it races a path against a symbolic link,
// the way an attacker who can write inside a confined tree would, so a
// test can show that no read or write ever leaves the tree.
package swaptest

import (
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Swapper exchanges two paths in a loop until stopped.
type Swapper struct {
	stop  chan struct{}
	done  sync.WaitGroup
	swaps atomic.Int64
	a, b  string
	odd   bool
}

// Start exchanges the entries at a and b (a regular file or directory and
// a symbolic link leading elsewhere) over and over until Stop, for at most
// max. On Linux each exchange is one renameat2(RENAME_EXCHANGE), so a is
// never missing; elsewhere it is three renames. Stop puts a back as it
// was.
func Start(t testing.TB, a, b string, max time.Duration) *Swapper {
	t.Helper()
	s := &Swapper{stop: make(chan struct{}), a: a, b: b}
	deadline := time.Now().Add(max)
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		for time.Now().Before(deadline) {
			select {
			case <-s.stop:
				return
			default:
			}
			if err := exchange(a, b); err != nil {
				t.Errorf("swap %s and %s: %v", a, b, err)
				return
			}
			s.odd = !s.odd
			s.swaps.Add(1)
		}
	}()
	t.Cleanup(s.Stop)
	return s
}

// Stop ends the loop and leaves a and b as they were at Start.
func (s *Swapper) Stop() {
	select {
	case <-s.stop:
		return
	default:
		close(s.stop)
	}
	s.done.Wait()
	if s.odd {
		exchange(s.a, s.b)
		s.odd = false
	}
}

// Swaps is how many exchanges happened.
func (s *Swapper) Swaps() int64 { return s.swaps.Load() }

// Tree lists every entry under dir with its content (symlinks as their
// target), to compare a tree that must not change before and after.
func Tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := walk(dir, "", out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func walk(dir, rel string, out map[string]string) error {
	ents, err := os.ReadDir(dir + "/" + rel)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := rel + e.Name()
		p := dir + "/" + name
		switch {
		case e.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[name] = "-> " + target
		case e.IsDir():
			out[name+"/"] = ""
			if err := walk(dir, name+"/", out); err != nil {
				return err
			}
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[name] = string(data)
		}
	}
	return nil
}
