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
	"strings"
	"testing"
	"time"

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
	// The commands below do in Go what a script would otherwise need a
	// POSIX shell, sed or touch for, so every script runs on Windows too.
	//
	// writestr DST 'GO-STRING': write the bytes of a Go string literal's
	// body (escapes such as \377 and \n included) to DST.
	"writestr": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: writestr DST GO-STRING")
		}
		s, err := strconv.Unquote(`"` + args[1] + `"`)
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(s), 0o644))
	},
	// eventually TIMEOUT REGEXP PROGRAM ARGS...: run the program again
	// (every 50 ms) until its stdout matches REGEXP, for what a background
	// command does in its own time; after TIMEOUT the script fails.
	"eventually": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 3 {
			ts.Fatalf("usage: eventually TIMEOUT REGEXP PROGRAM ARGS...")
		}
		timeout, err := time.ParseDuration(args[0])
		ts.Check(err)
		re, err := regexp.Compile(`(?m)` + args[1])
		ts.Check(err)
		for deadline := time.Now().Add(timeout); ; time.Sleep(50 * time.Millisecond) {
			err := ts.Exec(args[2], args[3:]...)
			if err == nil && re.MatchString(ts.ReadFile("stdout")) {
				return
			}
			if time.Now().After(deadline) {
				ts.Fatalf("after %v, %s does not print a match for %s (last error: %v)", timeout, args[2], args[1], err)
			}
		}
	},
	// stdoutvar VAR REGEXP: set VAR to the first group of REGEXP's first
	// match in stdout (an id a command made from paths under $WORK).
	"stdoutvar": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: stdoutvar VAR REGEXP")
		}
		re, err := regexp.Compile(`(?m)` + args[1])
		ts.Check(err)
		m := re.FindStringSubmatch(ts.ReadFile("stdout"))
		if len(m) < 2 {
			ts.Fatalf("stdout holds no match for %s with a group", args[1])
		}
		ts.Setenv(args[0], m[1])
	},
	// appendfile SRC DST: append SRC's bytes to DST (a harness writing
	// its transcript on).
	"appendfile": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: appendfile SRC DST")
		}
		data, err := os.ReadFile(ts.MkAbs(args[0]))
		ts.Check(err)
		f, err := os.OpenFile(ts.MkAbs(args[1]), os.O_APPEND|os.O_WRONLY, 0)
		ts.Check(err)
		_, err = f.Write(data)
		ts.Check(err)
		ts.Check(f.Close())
	},
	// replace SRC DST OLD NEW: copy SRC to DST with every OLD replaced by
	// NEW; OLD must occur.
	"replace": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 4 {
			ts.Fatalf("usage: replace SRC DST OLD NEW")
		}
		data := ts.ReadFile(args[0])
		if !strings.Contains(data, args[2]) {
			ts.Fatalf("%s holds no %q", args[0], args[2])
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.ReplaceAll(data, args[2], args[3])), 0o644))
	},
	// stdoutpath and stderrpath [-count=N] [-json] PATTERN: stdout and
	// stderr for a pattern naming paths, each "/" in it a path separator:
	// on Windows it matches a backslash (with -json, the \\ of a
	// backslash inside a JSON string); "\/" is a "/" that is not one (a
	// glob, an import as written). Elsewhere they are stdout and stderr.
	"stdoutpath": func(ts *testscript.TestScript, neg bool, args []string) { matchPath(ts, neg, "stdout", args) },
	"stderrpath": func(ts *testscript.TestScript, neg bool, args []string) { matchPath(ts, neg, "stderr", args) },
	// greppath [-count=N] [-json] PATTERN FILE: grep, the same way.
	"greppath": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 {
			ts.Fatalf("usage: greppath [-count=N] [-json] PATTERN FILE")
		}
		matchPath(ts, neg, args[len(args)-1], args[:len(args)-1])
	},
	// mtime FILE UNIX-SECONDS: set FILE's modification time.
	"mtime": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: mtime FILE UNIX-SECONDS")
		}
		sec, err := strconv.ParseInt(args[1], 10, 64)
		ts.Check(err)
		ts.Check(os.Chtimes(ts.MkAbs(args[0]), time.Unix(sec, 0), time.Unix(sec, 0)))
	},
}

// matchPath is stdoutpath, stderrpath and greppath: it matches args'
// pattern in file (stdout and stderr are the last command's).
func matchPath(ts *testscript.TestScript, neg bool, file string, args []string) {
	count, sep := -1, `\\`
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-json":
			sep = `\\\\`
		case strings.HasPrefix(args[0], "-count="):
			n, err := strconv.Atoi(strings.TrimPrefix(args[0], "-count="))
			if err != nil || n < 0 || neg {
				ts.Fatalf("bad %s (or with !)", args[0])
			}
			count = n
		default:
			ts.Fatalf("unknown flag %s", args[0])
		}
		args = args[1:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: %s: [-count=N] [-json] PATTERN", file)
	}
	pattern := args[0]
	if filepath.Separator != '/' {
		var b strings.Builder
		for i := 0; i < len(pattern); i++ {
			switch c := pattern[i]; {
			case c == '\\' && i+1 < len(pattern):
				b.WriteString(pattern[i : i+2])
				i++
			case c == '/':
				b.WriteString(sep)
			default:
				b.WriteByte(c)
			}
		}
		pattern = b.String()
	}
	re, err := regexp.Compile("(?m)" + pattern)
	ts.Check(err)
	text := ts.ReadFile(file)
	switch n := len(re.FindAllStringIndex(text, -1)); {
	case neg && n > 0:
		ts.Fatalf("unexpected match for %#q found in %s", pattern, file)
	case !neg && count < 0 && n == 0:
		ts.Fatalf("no match for %#q found in %s", pattern, file)
	case count >= 0 && n != count:
		ts.Fatalf("have %d matches for %#q in %s, want %d", n, pattern, file, count)
	}
}

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"lineage":  func() { os.Exit(Main()) },
		"exits":    func() { os.Exit(exits(os.Args[1:])) },
		"repeat":   func() { os.Exit(repeat(os.Args[1:])) },
		"nostdout": func() { os.Exit(noStdout(os.Args[1:])) },
	})
}

// startAndWait runs program with args, its stderr the caller's. A process
// that could not be started at all is started again, up to three times: Wine
// now and then refuses to create one ("Internal error") when dozens start at
// once, before the program under test has run a line.
func startAndWait(program string, args []string) error {
	for try := 1; ; try++ {
		cmd := exec.Command(program, args...)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			if try < 3 {
				time.Sleep(time.Duration(try) * 100 * time.Millisecond)
				continue
			}
			return err
		}
		return cmd.Wait()
	}
}

// repeat N PROGRAM ARGS… runs PROGRAM N times, one after another, each
// "{i}" in ARGS replaced by the run's number (1…N) and its stdout
// discarded; the first failure ends it with that run's exit code. A loop
// without a shell: `exec repeat 20 lineage tract commit --text 'w{i}' &`.
func repeat(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: repeat N PROGRAM [ARGS…]")
		return 2
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "repeat: bad count %q\n", args[0])
		return 2
	}
	for i := 1; i <= n; i++ {
		run := make([]string, len(args)-2)
		for j, a := range args[2:] {
			run[j] = strings.ReplaceAll(a, "{i}", strconv.Itoa(i))
		}
		err := startAndWait(args[1], run)
		if err != nil {
			fmt.Fprintf(os.Stderr, "repeat: run %d of %s: %v\n", i, args[1], err)
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() > 0 {
				return ee.ExitCode()
			}
			return 1
		}
	}
	return 0
}

// noStdout CODE PROGRAM ARGS… runs PROGRAM with the script's stdin and
// stderr and its stdout closed (file descriptor 1 not open at all), and
// succeeds only when it exits with CODE.
func noStdout(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: nostdout CODE PROGRAM [ARGS…]")
		return 2
	}
	want, err := strconv.Atoi(args[0])
	path, lerr := exec.LookPath(args[1])
	if err != nil || lerr != nil {
		fmt.Fprintf(os.Stderr, "nostdout: %v %v\n", err, lerr)
		return 2
	}
	p, err := os.StartProcess(path, args[1:], &os.ProcAttr{Env: os.Environ(), Files: []*os.File{os.Stdin, nil, os.Stderr}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "nostdout: %v\n", err)
		return 2
	}
	st, err := p.Wait()
	if err != nil {
		fmt.Fprintf(os.Stderr, "nostdout: %v\n", err)
		return 2
	}
	if got := st.ExitCode(); got != want {
		fmt.Fprintf(os.Stderr, "nostdout: %s exited %d, want %d\n", args[1], got, want)
		return 1
	}
	return 0
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
			for _, k := range []string{"NO_COLOR", "LINEAGE_STORE", "LINEAGE_SESSIONS_STORE", "LINEAGE_TRACT", "LINEAGE_NOW"} {
				e.Setenv(k, "")
			}
			// Nor on the machine's Claude Code managed policy.
			e.Setenv("LINEAGE_CLAUDE_MANAGED_SETTINGS", filepath.Join(e.WorkDir, "no-managed-settings.json"))
			// CLAUDE_WORK is $WORK as Claude Code names a project's folder
			// under projects/ (each character but a letter or digit a "-").
			e.Setenv("CLAUDE_WORK", strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
					return r
				}
				return '-'
			}, e.WorkDir))
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
		switch {
		case err != nil:
			return err
		case d.IsDir() && filepath.Dir(path) == e.WorkDir && d.Name() == ".tmp":
			return filepath.SkipDir // testscript's TMPDIR, not the archive's
		case d.IsDir():
			return nil
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
