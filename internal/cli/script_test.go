package cli

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"lineage": func() { os.Exit(Main()) },
	})
}

// TestScripts runs every testdata/script/*.txtar: the user's view of each
// command, with exact outputs where the spec fixes them.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(e *testscript.Env) error {
			// Scripts must not depend on the developer's configuration.
			for _, k := range []string{"NO_COLOR", "LINEAGE_STORE", "LINEAGE_TRACT", "LINEAGE_NOW"} {
				e.Setenv(k, "")
			}
			return nil
		},
	})
}
