package mcpserver

import (
	"testing"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/instructions/fstest"
	"github.com/agentlineage/lineage/internal/confine"
)

// The loader's confined view behaves as the filesystem inside its roots,
// with and without the project chain above them.
func TestConfinedFSConformance(t *testing.T) {
	roots := func(t *testing.T, dir string) confine.Roots {
		r, err := confine.New(dir)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	fstest.Run(t, func(t *testing.T, root string) instructions.FS {
		return confinedFS{FS: instructions.OS, roots: roots(t, root)}
	})
	t.Run("project", func(t *testing.T) {
		fstest.Run(t, func(t *testing.T, root string) instructions.FS {
			return confinedFS{FS: instructions.OS, roots: roots(t, root), project: roots(t, root), names: []string{"AGENTS.md"}}
		})
	})
}
