package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// stopSignals are the signals that stop a command cleanly.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// signalContext returns a context cancelled by the first SIGINT or SIGTERM.
// After that first signal the default action is restored, so a second one
// ends the process at once even if a command ignored the cancellation.
// received reports the first signal, or nil.
func signalContext(parent context.Context) (ctx context.Context, received func() os.Signal, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	var mu sync.Mutex
	var got os.Signal
	done := make(chan struct{})
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
	received = func() os.Signal {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	stop = func() {
		close(done)
		signal.Stop(ch)
		cancel(nil)
	}
	return ctx, received, stop
}

// signalExitCode is the exit status of a command that failed after a stop
// signal: 128 + the signal number, as a shell reports a process killed by
// it (130 for SIGINT, 143 for SIGTERM). A command that finished despite the
// signal keeps its own status: its work is complete.
func signalExitCode(code int, sig os.Signal, stderr io.Writer) int {
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
	}
	return s.String()
}
