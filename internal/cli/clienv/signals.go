package clienv

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// notifySignals is signal.Notify; a test counts its calls.
var notifySignals = defaultNotify

var defaultNotify = signal.Notify

// stopSignals are the signals that stop a command cleanly: SIGHUP (a closed
// terminal) too, so a writer holding a lock removes its lock file as on
// SIGINT and SIGTERM instead of dying by the default action.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// ArmSignalsAfter is how long a command runs before SIGINT, SIGTERM and SIGHUP are
// caught for it even if it never asked for its context's cancellation.
const ArmSignalsAfter = 20 * time.Millisecond

// SignalContext returns a context cancelled by the first SIGINT, SIGTERM or
// SIGHUP.
// armAfter is ArmSignalsAfter but in tests.
// After that first signal the default action is restored, so a second one
// ends the process at once even if a command ignored the cancellation.
// received reports the first signal, or nil.
//
// Catching signals costs a process two threads (a fifth of a short
// command's run), so it is armed only when needed: when anything first
// asks for the context's Done channel (a wait on a lock, a database call,
// a server), or once the command has run for armAfter. A signal
// before then ends the process by the default action, as SIGKILL would:
// every write is a rename or a transaction, so nothing is half-written.
func SignalContext(parent context.Context, armAfter time.Duration) (ctx context.Context, received func() os.Signal, stop func()) {
	inner, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	var mu sync.Mutex
	var got os.Signal
	done := make(chan struct{})
	var once sync.Once
	ac := &armingContext{Context: inner}
	arm := func() {
		once.Do(func() {
			ac.armed.Store(true)
			notifySignals(ch, stopSignals...)
			go func() {
				select {
				case s := <-ch:
					mu.Lock()
					got = s
					mu.Unlock()
					signal.Reset(stopSignals...)
					cancel(fmt.Errorf("stopped by %v", s))
				case <-done:
				}
			}()
		})
	}
	timer := time.AfterFunc(armAfter, arm)
	received = func() os.Signal {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	stop = func() {
		timer.Stop()
		once.Do(func() {}) // a late timer must not arm now
		close(done)
		signal.Stop(ch)
		cancel(nil)
	}
	ac.arm = arm
	return ac, received, stop
}

// armingContext arms the signal handling the first time Done is asked for.
type armingContext struct {
	context.Context
	arm   func()
	armed atomic.Bool
}

// pollingContext is ctx for a read command's store calls. The SQLite
// driver and database/sql start a goroutine to watch the Done channel of
// every query and every result set; on a short read command those
// goroutines, and the signal handling that asking for Done arms, cost
// about a tenth of its run. So until the signals are armed (by the timer,
// after ArmSignalsAfter, or by anything that does wait on Done) its Done
// is nil: a query started then is not watched, as the signal would end
// the process anyway. Once armed, Done is ctx's: a later query stops at a
// signal as before. Err is always ctx's. Only a context from
// SignalContext is changed; a read command never derives a context from
// it, which would miss its cancellation.
func pollingContext(ctx context.Context) context.Context {
	if a, ok := ctx.(*armingContext); ok {
		return polling{a}
	}
	return ctx
}

type polling struct{ a *armingContext }

func (p polling) Deadline() (time.Time, bool) { return p.a.Deadline() }
func (p polling) Err() error                  { return p.a.Err() }
func (p polling) Value(key any) any           { return p.a.Value(key) }
func (p polling) Done() <-chan struct{} {
	if p.a.armed.Load() {
		return p.a.Context.Done()
	}
	return nil
}

func (c *armingContext) Done() <-chan struct{} {
	c.arm()
	return c.Context.Done()
}

// SignalExitCode is the exit status of a command that failed after a stop
// signal: 128 + the signal number, as a shell reports a process killed by
// it (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP). A command that finished despite the
// signal keeps its own status: its work is complete.
func SignalExitCode(code int, sig os.Signal, stderr io.Writer) int {
	s, ok := sig.(syscall.Signal)
	if code == ExitOK || !ok {
		return code
	}
	fmt.Fprintf(stderr, "lineage: stopped by %s\n", signalName(s))
	return 128 + int(s)
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}
