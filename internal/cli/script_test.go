package cli

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmds are commands scripts may use besides testscript's own.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// expandenv SRC DST: copy SRC to DST with $VAR and ${VAR} expanded, so
	// a recorded hook event can name paths under $WORK.
	"expandenv": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: expandenv SRC DST")
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o644))
	},
}

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
		Cmds:                scriptCmds,
		Setup: func(e *testscript.Env) error {
			// Scripts must not depend on the developer's configuration.
			for _, k := range []string{"NO_COLOR", "LINEAGE_STORE", "LINEAGE_TRACT", "LINEAGE_NOW"} {
				e.Setenv(k, "")
			}
			return nil
		},
	})
}
