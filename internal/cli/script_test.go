package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
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
	// cprepo SRC DST: copy SRC, a path from the module root (a binary
	// fixture such as a store an older release wrote), to DST.
	"cprepo": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: cprepo SRC DST")
		}
		data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(args[0])))
		ts.Check(err)
		ts.Check(os.MkdirAll(filepath.Dir(ts.MkAbs(args[1])), 0o755))
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), data, 0o644))
	},
}

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"lineage": func() { os.Exit(Main()) },
		"exits":   func() { os.Exit(exits(os.Args[1:])) },
	})
}

// exits CODE PROGRAM ARGS… runs PROGRAM with the script's streams and
// succeeds only when it exits with CODE: `exec exits 2 lineage tract …`
// checks an exit code exactly and still lets the script match stdout and
// stderr.
func exits(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: exits CODE PROGRAM [ARGS…]")
		return 2
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "exits: bad code %q\n", args[0])
		return 2
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	got := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			fmt.Fprintf(os.Stderr, "exits: %v\n", err)
			return 2
		}
		got = ee.ExitCode()
	}
	if got != want {
		fmt.Fprintf(os.Stderr, "exits: %s exited %d, want %d\n", args[1], got, want)
		return 1
	}
	return 0
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
			return nativePaths(e)
		},
	})
}

// workPath is a "$WORK/…" path in a script's file: $WORK (or ${WORK}) and
// the path's "/"-separated rest.
var workPath = regexp.MustCompile(`\$(?:WORK\b|\{WORK\})((?:/[^\s"'` + "`" + `:,;()<>\\]*)*)`)

// nativePaths makes a script's paths this OS's. Scripts and their files
// are written with "/" (what Linux and macOS print, byte for byte); on
// Windows every "$WORK/…" path in the files the archive unpacked becomes
// what Windows prints: backslashes, and in a file holding a JSON document
// (a golden output, a recorded hook event) $WORK's value too, JSON-escaped.
// For the script lines themselves, $/ (testscript's own) is the separator,
// SEP_JSON it inside a JSON string and WORK_JSON $WORK there: a pattern
// written with them (${WORK_JSON@R}${SEP_JSON@R}repo) matches on every OS.
// Elsewhere nothing changes.
func nativePaths(e *testscript.Env) error {
	sepJSON, workJSON := jsonBody(string(filepath.Separator)), jsonBody(e.WorkDir)
	e.Setenv("SEP_JSON", sepJSON)
	e.Setenv("WORK_JSON", workJSON)
	if filepath.Separator == '/' {
		return nil
	}
	return filepath.WalkDir(e.WorkDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && path != e.WorkDir && d.Name() == ".tmp" {
				return filepath.SkipDir
			}
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil || !workPath.Match(data) {
			return err
		}
		isJSON := jsontext.Value(data).IsValid()
		data = workPath.ReplaceAllFunc(data, func(m []byte) []byte {
			rest := filepath.FromSlash(string(workPath.FindSubmatch(m)[1]))
			if isJSON {
				return []byte(workJSON + jsonBody(rest))
			}
			return []byte("$WORK" + rest)
		})
		return os.WriteFile(path, data, 0o644)
	})
}

// jsonBody is s as it appears inside a JSON string.
func jsonBody(s string) string {
	b, err := jsontext.AppendQuote(nil, s)
	if err != nil {
		panic(err)
	}
	return string(b[1 : len(b)-1])
}
