package hooks

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlineage/lineage/instructions"
)

// Env is what the native view reads of the hook's environment.
type Env struct {
	// Lookup reads an environment variable; nil reads none.
	Lookup func(string) (string, bool)
	// Home is the user's home directory.
	Home string
	// Parents, when set, lists the programs (and scripts) of the processes
	// above the hook, nearest first; nil reads them from the system
	// (Linux /proc; elsewhere none).
	Parents func() []string
	// ParentArgs, when set, lists the arguments (argv) of the processes
	// above the hook, nearest first; nil reads them from the system (Linux
	// /proc, macOS sysctl; elsewhere none).
	ParentArgs func() [][]string
}

// parentHasFlag reports whether one of the processes above the hook was
// started with flag among its arguments (before a "--").
func (e Env) parentHasFlag(flag string) bool {
	read := e.ParentArgs
	if read == nil {
		read = procParentArgs
	}
	for _, args := range read() {
		for _, a := range args[min(1, len(args)):] {
			if a == "--" {
				break
			}
			if a == flag {
				return true
			}
		}
	}
	return false
}

func (e Env) get(key string) string {
	if e.Lookup == nil {
		return ""
	}
	v, _ := e.Lookup(key)
	return strings.TrimSpace(v)
}

// lookPath finds the program prog (a name) as the harness would run it:
// the first executable file of that name on the environment's PATH, or on
// the process's when the Env has no Lookup; "" when there is none.
func (e Env) lookPath(prog string) string {
	if e.Lookup == nil {
		p, err := exec.LookPath(prog)
		if err != nil {
			return ""
		}
		return p
	}
	pathVar, _ := e.Lookup("PATH")
	exts := e.programExts(prog)
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" {
			continue
		}
		for _, ext := range exts {
			c := filepath.Join(dir, prog+ext)
			if fi, err := os.Stat(c); err == nil && !fi.IsDir() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
				return c
			}
		}
	}
	return ""
}

// programExts are the endings a program name is tried with, as the OS's
// shell tries them: on Windows the environment's %PATHEXT% (".exe", ".cmd"
// and the rest; an executable bit means nothing there) unless the name has
// one already; elsewhere the name as it is.
func (e Env) programExts(prog string) []string {
	if runtime.GOOS != "windows" {
		return []string{""}
	}
	pathext, _ := e.Lookup("PATHEXT")
	if strings.TrimSpace(pathext) == "" {
		pathext = ".COM;.EXE;.BAT;.CMD"
	}
	exts := []string{}
	for _, x := range strings.Split(strings.ToLower(pathext), ";") {
		if x = strings.TrimSpace(x); strings.HasPrefix(x, ".") {
			if strings.EqualFold(filepath.Ext(prog), x) {
				return []string{""}
			}
			exts = append(exts, x)
		}
	}
	return exts
}

// Native is what a harness puts in the model's context by itself at a
// session start in one working directory: which instruction files, and how
// much of each. lineage never sends the body of such a file again.
type Native struct {
	// Harness is the harness it describes.
	Harness *Harness
	// Version is the harness version found ("" when none was found).
	Version string
	// Known is false when lineage cannot tell what the harness loads: the
	// hook then sends paths, not bodies.
	Known bool
	// Names are the file names the harness loads by itself, in its order.
	Names []string
	// How says in one line how lineage found this out (for hook status).
	How string
	// files maps a loaded file's real path to the bytes the harness kept
	// (-1: all of it).
	files map[string]int64
	// maybe holds the real paths of files the harness may or may not have
	// loaded (its choice hangs on something lineage cannot read): they get
	// their paths, never their bodies, and a text that says so.
	maybe map[string]bool
	// attach are the harness's own loading of instruction files near a
	// path a tool touched (Claude Code's nested CLAUDE.md on Read, Gemini
	// CLI's just-in-time GEMINI.md): lineage never names those files with
	// "read and apply".
	attach []attachRule
	// rules is the harness's own rule folder ("/.claude/rules/"): it
	// applies the rules there itself (with their paths), so lineage never
	// sends their bodies and never says it did.
	rules string
	// globs match the whole slash paths (see slashPath) of more files the
	// harness loads itself: opencode's instructions setting.
	globs []instructions.Glob
}

// attachRule is one way a harness attaches instruction files after a tool
// touched a path: files with one of names in the directories from the
// target's up to (not including) the session's working directory.
type attachRule struct {
	tools []string
	// names are the file names, relative to their directory
	// (".claude/CLAUDE.md").
	names []string
	// dirTools name the tools whose target is a directory, not a file.
	dirTools []string
	// skipDirsWith: a directory holding one of these is skipped.
	skipDirsWith []string
	// maybe: the harness may or may not attach them.
	maybe bool
}

// Attach says how the harness loads path by itself after tool touched
// target in a session whose working directory is cwd.
type Attach int

// What the harness does with an instruction file after a tool.
const (
	// NotAttached: the harness does not put it in the model's context.
	NotAttached Attach = iota
	// Attached: the harness attaches its text to the tool's result.
	Attached
	// MaybeAttached: the harness may attach it (lineage cannot tell).
	MaybeAttached
)

// Attached says whether the harness itself attaches the instruction file
// path after tool touched target (absolute) in a session in cwd.
func (n Native) Attached(tool, target, cwd, path string) Attach {
	if n.rules != "" && strings.Contains(filepath.ToSlash(path), n.rules) {
		// The harness's own rule with globs: it applies it to the matching
		// files it works on, when exactly its docs do not say.
		return MaybeAttached
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	for _, r := range n.attach {
		if !slices.Contains(r.tools, tool) {
			continue
		}
		fileDir := ""
		for _, name := range r.names {
			if filepath.Base(name) != base {
				continue
			}
			d := dir
			if rel := filepath.Dir(filepath.FromSlash(name)); rel != "." {
				if filepath.Base(d) != rel {
					continue
				}
				d = filepath.Dir(d)
			}
			fileDir = d
		}
		if fileDir == "" {
			continue
		}
		start := filepath.Dir(target)
		if slices.Contains(r.dirTools, tool) {
			start = target
		}
		if !within(fileDir, cwd) || fileDir == filepath.Clean(cwd) || !within(start, fileDir) {
			continue
		}
		skip := false
		for _, name := range r.skipDirsWith {
			skip = skip || isFile(filepath.Join(fileDir, name))
		}
		if skip {
			continue
		}
		if r.maybe {
			return MaybeAttached
		}
		return Attached
	}
	return NotAttached
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Unsure reports whether the harness may or may not have loaded path.
func (n Native) Unsure(path string) bool {
	return !n.Known || n.maybe[realPath(path)]
}

// Loaded reports whether the harness put all of path (a logical path; it
// is compared by its real path) in the model's context.
func (n Native) Loaded(path string) bool {
	if n.rules != "" && strings.Contains(filepath.ToSlash(path), n.rules) {
		return true
	}
	real := realPath(path)
	if kept, ok := n.files[real]; ok {
		return kept < 0
	}
	for _, g := range n.globs {
		if g.Match(slashPath(path)) || g.Match(slashPath(real)) {
			return true
		}
	}
	return false
}

// Cut returns how many bytes of path the harness kept when it cut the
// file at its byte cap (ok false when it did not cut it).
func (n Native) Cut(path string) (kept int64, ok bool) {
	kept, ok = n.files[realPath(path)]
	return kept, ok && kept >= 0
}

// preloaded reports whether lineage leaves path's body out of the start:
// the harness loaded it (whole or cut), or lineage cannot tell.
func (n Native) preloaded(path string) bool {
	if n.Unsure(path) {
		return true
	}
	_, cut := n.Cut(path)
	return cut || n.Loaded(path)
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// NativeView works out what h loads by itself for a session in cwd, from
// the harness's settings files, its version (found beside its program on
// PATH) and the environment variables it documents.
func NativeView(h *Harness, cwd string, env Env) Native {
	switch h {
	case Codex:
		return codexNative(cwd, env)
	case Claude:
		n := claudeNative(cwd, env)
		if n.Known {
			n.rules = ownRules(Claude)
		}
		return n
	case Gemini:
		return geminiNative(cwd, env)
	case Cursor:
		return cursorNative(cwd)
	case Copilot:
		return copilotNative(cwd, env)
	case Opencode:
		return opencodeNative(cwd, env)
	}
	return Native{Harness: h}
}

// readPrefix reads at most limit bytes of path and returns them with the
// file's size.
func readPrefix(path string, limit int64) ([]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit))
	return data, fi.Size(), err
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// readJSON decodes the JSON file at path into v, ignoring unknown keys;
// false when it is missing or not JSON.
func readJSON(path string, v any) bool {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > instructions.MaxConfigBytes {
		return false
	}
	return json.Unmarshal(data, v, json.RejectUnknownMembers(false), jsontext.AllowDuplicateNames(true)) == nil
}

// ownRules is the rule folder a harness applies itself ("" for none):
// Claude Code .claude/rules (code.claude.com/docs/en/memory), Cursor
// .cursor/rules (cursor.com/docs/rules), as the text a slash path holds.
func ownRules(h *Harness) string {
	switch h {
	case Claude:
		return "/.claude/rules/"
	case Cursor:
		return "/.cursor/rules/"
	}
	return ""
}
