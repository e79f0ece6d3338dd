package instructions

import (
	"os"
	"path/filepath"
	"testing"
)

const benchDepth, benchSiblings = 20, 50

// BenchmarkResolve is a steady-state resolve at depth 20 with 50 sibling
// directories per level: every file is known, so the cost is the walk.
// Compare with BenchmarkStatFloor, the same number of bare os.Stat calls.
func BenchmarkResolve(b *testing.B) {
	root, leaf := deepRepo(b, benchDepth, benchSiblings)
	s, _ := Start(opts(root, func(c *Config) { c.Resolver.MaxFilesPerResolve = 100 }))
	target := filepath.Join(leaf, "main.go")
	if r := s.Resolve(target); len(r.Files) != benchDepth/2 {
		b.Fatalf("warm-up resolved %d files", len(r.Files))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if r := s.Resolve(target); len(r.Files) != 0 {
			b.Fatal("steady state reported files")
		}
	}
}

// BenchmarkStatFloor is the floor for BenchmarkResolve: one os.Stat per
// directory from the root to the leaf plus one for the target.
func BenchmarkStatFloor(b *testing.B) {
	root, leaf := deepRepo(b, benchDepth, benchSiblings)
	var names []string
	for _, d := range chainDirs(root, leaf) {
		names = append(names, filepath.Join(d, "AGENTS.md"))
	}
	names = append(names, filepath.Join(leaf, "main.go"))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, n := range names {
			os.Stat(n) //nolint:errcheck // half of them do not exist
		}
	}
}

// BenchmarkResolveNew measures a resolve that reports and registers the
// whole chain (a fresh session each time).
func BenchmarkResolveNew(b *testing.B) {
	root, leaf := deepRepo(b, benchDepth, benchSiblings)
	o := opts(root, func(c *Config) { c.Resolver.MaxFilesPerResolve = 100 })
	target := filepath.Join(leaf, "main.go")
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		s := newSession(o, Root{Dir: root, Source: "cwd"}, root, nil)
		b.StartTimer()
		s.Resolve(target)
	}
}

// BenchmarkUpdateSessionNothingNew is what one `resolve --state` process
// does on the cross-harness fixture (imports, a scoped rule) when nothing is
// new: lock, read and restore the state, resolve, find it unchanged.
func BenchmarkUpdateSessionNothingNew(b *testing.B) {
	root := crossHarnessRepo(b)
	c := DefaultConfig()
	harnessProfiles["Claude Code"](&c)
	o := Options{Config: c, Cwd: filepath.Join(root, "web")}
	state := filepath.Join(b.TempDir(), "state.json")
	resolve := func(s *Session, _ *Initial) error { s.Resolve("src/components/Button.tsx"); return nil }
	if err := UpdateSession(b.Context(), state, o, resolve); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := UpdateSession(b.Context(), state, o, resolve); err != nil {
			b.Fatal(err)
		}
	}
}
