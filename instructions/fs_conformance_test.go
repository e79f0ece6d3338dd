package instructions_test

import (
	"testing"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/instructions/fstest"
	"github.com/agentlineage/lineage/internal/fsx"
)

func TestOSConformance(t *testing.T) {
	fstest.Run(t, func(*testing.T, string) instructions.FS { return instructions.OS })
}

// Traced keeps exactly the optional interfaces of what it wraps: each of
// the four shapes passes the suite.
func TestTracedConformance(t *testing.T) {
	os := instructions.OS
	for name, fsys := range map[string]instructions.FS{
		"FS": struct{ instructions.FS }{os},
		"RootOpener": struct {
			instructions.FS
			instructions.RootOpener
		}{os, os.(instructions.RootOpener)},
		"DirReader": struct {
			instructions.FS
			instructions.DirReader
		}{os, os.(instructions.DirReader)},
		"both": os,
	} {
		t.Run(name, func(t *testing.T) {
			trail := fsx.NewTrail()
			fstest.Run(t, func(*testing.T, string) instructions.FS { return instructions.Traced(fsys, trail) })
			if trail.Len() == 0 {
				t.Error("the trail noted nothing")
			}
		})
	}
}
