//go:build !linux && !darwin && !windows

package hooks

// procParents: on this system lineage does not read other processes'
// programs; the harness's version then comes from PATH alone.
func procParents() []string { return nil }

// procParentArgs: none on this system.
func procParentArgs() [][]string { return nil }
