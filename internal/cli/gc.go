package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// gcFloor is the heap a one-shot command may reach before the garbage
// collector first runs.
//
// A command's heap is mostly what it prints: the view a compile decodes,
// the commits a log shows. It stays live until the process exits, so the
// collections Go's default pacing starts at 4, 8, 16 … MiB find little
// garbage and cost a tenth to a third of a command's CPU (a cold compile
// of 10k messages: 0.64× without them, and a lower peak RSS). Until the
// heap reaches gcFloor the collector is off; its first collection there
// restores the default pacing (GOGC=100, no limit), so a command that
// outgrows the floor is collected as before.
const gcFloor = 128 << 20

// collectLate turns collection off until the heap reaches gcFloor and
// returns the function that restores the default pacing at once (servers
// call it: they run for hours). A GOGC or GOMEMLIMIT the user set wins.
func collectLate() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(gcFloor)
	var once sync.Once
	restore = func() {
		once.Do(func() {
			debug.SetGCPercent(old)
			debug.SetMemoryLimit(limit)
		})
	}
	// The sentinel dies at the first collection, which only the limit
	// can start: its cleanup restores the pacing.
	sentinel := new([64]byte)
	runtime.AddCleanup(sentinel, func(struct{}) { restore() }, struct{}{})
	return restore
}
