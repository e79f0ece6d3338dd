package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// The collector is off until the first collection (which the memory limit
// at gcFloor starts), then back to Go's default pacing; restore does it at
// once, and a GOGC the user set is left alone.
func TestCollectLate(t *testing.T) {
	t.Cleanup(func() { debug.SetGCPercent(100); debug.SetMemoryLimit(math.MaxInt64) })
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")

	collectLate()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != -1 || l != gcFloor {
		t.Fatalf("after collectLate: GOGC %d, limit %d; want off and %d", p, l, gcFloor)
	}
	runtime.GC() // as the limit would
	deadline := time.Now().Add(10 * time.Second)
	for gcPercent() == -1 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 100 || l != math.MaxInt64 {
		t.Fatalf("after the first collection: GOGC %d, limit %d; want 100 and none", p, l)
	}

	restore := collectLate()
	restore()
	if p := gcPercent(); p != 100 {
		t.Fatalf("after restore: GOGC %d", p)
	}

	t.Setenv("GOGC", "50")
	collectLate()
	if p := gcPercent(); p != 100 {
		t.Fatalf("with GOGC set by the user: GOGC %d, want it untouched", p)
	}
}
