package clienv

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// Signals are caught only once the command asks for its context's Done
// channel (or has run ArmSignalsAfter): a short command never pays for
// the handler's threads.
func TestSignalContextArmsLazily(t *testing.T) {
	var calls atomic.Int32
	notifySignals = func(chan<- os.Signal, ...os.Signal) { calls.Add(1) }
	t.Cleanup(func() { notifySignals = defaultNotify })

	// An hour: the checks before anything waits must not race the timer.
	ctx, _, stop := SignalContext(context.Background(), time.Hour)
	if n := calls.Load(); n != 0 {
		t.Fatalf("armed %d times before anything waited", n)
	}
	_ = ctx.Value("any")
	_ = ctx.Err()
	if n := calls.Load(); n != 0 {
		t.Fatalf("Value/Err armed the handler (%d)", n)
	}
	_, cancel := context.WithTimeout(ctx, time.Hour)
	defer cancel()
	if n := calls.Load(); n != 1 {
		t.Fatalf("deriving a context (which watches Done) armed %d times, want 1", n)
	}
	ctx.Done()
	stop()
	if n := calls.Load(); n != 1 {
		t.Fatalf("armed %d times, want once", n)
	}

	// Unasked, the timer arms it; a stopped context never arms.
	calls.Store(0)
	_, _, stop = SignalContext(context.Background(), ArmSignalsAfter)
	deadline := time.Now().Add(10 * time.Second)
	for calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	stop()
	if n := calls.Load(); n != 1 {
		t.Fatalf("the timer armed %d times, want 1", n)
	}
	calls.Store(0)
	_, _, stop = SignalContext(context.Background(), ArmSignalsAfter)
	stop()
	time.Sleep(2 * ArmSignalsAfter)
	if n := calls.Load(); n != 0 {
		t.Fatalf("a stopped context armed %d times", n)
	}
}

// A read command's store calls get a polling context: its Done is nil,
// and arms nothing, until the signals are armed; then it is the command's.
func TestPollingContext(t *testing.T) {
	var calls atomic.Int32
	notifySignals = func(chan<- os.Signal, ...os.Signal) { calls.Add(1) }
	t.Cleanup(func() { notifySignals = defaultNotify })

	ctx, _, stop := SignalContext(context.Background(), time.Hour)
	defer stop()
	p := pollingContext(ctx)
	if p.Done() != nil {
		t.Fatal("a polling context has a Done channel before the signals are armed")
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("asking a polling context for Done armed the handler (%d)", n)
	}
	if p.Err() != nil || p.Value("k") != nil {
		t.Fatal("Err or Value differ from the command's context")
	}
	done := ctx.Done() // arms
	if n := calls.Load(); n != 1 {
		t.Fatalf("armed %d times, want 1", n)
	}
	if p.Done() != done {
		t.Fatal("once armed, a polling context's Done is not the command's")
	}
	if plain := context.Background(); pollingContext(plain) != plain {
		t.Fatal("a context not from signalContext was changed")
	}
}
