package clienv

import (
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/agentlineage/lineage/internal/config"
)

// Env is everything a command may take from its surroundings. Tests build
// one by hand; [Main] builds it from the process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// LookupEnv reads an environment variable; nil means none are set.
	LookupEnv func(key string) (string, bool)
	// Dir is the process working directory, the default for --cwd/--path.
	Dir string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// StdinTerminal reports whether stdin is an interactive terminal:
	// commands that read stdin then say so on stderr before they wait.
	StdinTerminal bool
	// StdoutTerminal reports whether stdout is an interactive terminal.
	StdoutTerminal bool
	// StderrTerminal reports whether stderr is an interactive terminal.
	StderrTerminal bool
	// Serving, when set, is called by a command that serves until it is
	// stopped (mcp, serve): the process then collects garbage as Go does
	// by default (see collectLate).
	Serving func()
	// Version is lineage's version, for what a command reports of itself
	// (the MCP server's implementation version); Run fills it in.
	Version string
	// Exits is set when the process ends as the command returns (Main):
	// a read command then leaves its SQLite store for the exit to close.
	Exits bool

	hostOnce sync.Once
	host     *config.Host
}

// Host is what the host says (variables, home, state directory, store and
// tract choice, clock), read from LookupEnv, Dir and Now on first use and
// kept: a command sees one configuration from start to end.
func (e *Env) Host() *config.Host {
	e.hostOnce.Do(func() { e.host = config.Read(e.LookupEnv, e.Dir, e.Now) })
	return e.host
}

// ProcessEnv returns the Env of the running process.
func ProcessEnv() *Env {
	dir, err := os.Getwd()
	if err != nil {
		dir = os.Getenv("PWD")
	}
	return &Env{
		Stdin:          os.Stdin,
		Stdout:         os.Stdout,
		Stderr:         os.Stderr,
		LookupEnv:      os.LookupEnv,
		Dir:            dir,
		Now:            time.Now,
		StdinTerminal:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTerminal: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTerminal: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// Getenv returns the variable's value, or "" when it is not set (for the
// variables a user names, such as --token-env's, and the terminal's).
func (e *Env) Getenv(key string) string { return e.Host().Getenv(key) }

// Clock is the clock every command writes times with: a fixed
// LINEAGE_NOW (an RFC 3339 time, for reproducible runs) when that is set,
// else the injected clock, else time.Now. A LINEAGE_NOW that is not a time
// is a usage error.
func (e *Env) Clock() (func() time.Time, error) {
	now, err := e.Host().Clock()
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return now, nil
}

// Color reports whether output to stdout may use colour: only on a terminal
// and only when NO_COLOR is unset or empty (https://no-color.org).
func (e *Env) Color() bool {
	return e.StdoutTerminal && strings.TrimSpace(e.Getenv("NO_COLOR")) == "" && e.Getenv("TERM") != "dumb"
}

// Progress reports whether a command may draw progress on stderr: only when
// both stdout and stderr are terminals and NO_COLOR is unset.
func (e *Env) Progress() bool {
	return e.Color() && e.StderrTerminal
}

// NoteServing tells the process that this command serves until stopped.
func (e *Env) NoteServing() {
	if e.Serving != nil {
		e.Serving()
	}
}

// NoteStreaming tells the process that this command streams its input
// through a bounded heap (tract import): what it allocates is garbage a
// chunk later, so it collects as Go does by default, as a server does. A
// 100k-message import otherwise peaked at 2.0 KiB of RSS a message (the
// heap grown to gcFloor on top of SQLite's page cache), 1.3 KiB so, for
// the same CPU.
func (e *Env) NoteStreaming() { e.NoteServing() }
