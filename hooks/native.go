package hooks

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
}

func (e Env) get(key string) string {
	if e.Lookup == nil {
		return ""
	}
	v, _ := e.Lookup(key)
	return strings.TrimSpace(v)
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
}

// Loaded reports whether the harness put all of path (a logical path; it
// is compared by its real path) in the model's context.
func (n Native) Loaded(path string) bool {
	kept, ok := n.files[realPath(path)]
	return ok && kept < 0
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
	if !n.Known {
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
		return claudeNative(cwd, env)
	case Gemini:
		return geminiNative(cwd, env)
	}
	return Native{Harness: h}
}

// ---- Codex CLI ----

// CodexHome is Codex CLI's configuration directory: $CODEX_HOME, else
// ~/.codex.
func CodexHome(env Env) string {
	if v := env.get("CODEX_HOME"); v != "" {
		return v
	}
	return filepath.Join(env.Home, ".codex")
}

// codexConfig is what lineage reads of Codex CLI's config.toml: the
// top-level keys that shape its project docs.
type codexConfig struct {
	maxBytes  int64
	fallbacks []string
	markers   []string
	hooksOff  bool
}

// readCodexConfig reads the top-level project_doc_max_bytes,
// project_doc_fallback_filenames and project_root_markers keys and
// [features] hooks of a config.toml. Only single-line values are read
// (what Codex's own config writer produces); anything else keeps the
// default.
func readCodexConfig(path string) codexConfig {
	f, err := os.Open(path)
	if err != nil {
		return codexConfig{maxBytes: 32 << 10, markers: []string{".git"}}
	}
	defer f.Close()
	return parseCodexConfig(io.LimitReader(f, instructions.MaxConfigBytes))
}

// parseCodexConfig reads the keys readCodexConfig describes from r.
func parseCodexConfig(r io.Reader) codexConfig {
	c := codexConfig{maxBytes: 32 << 10, markers: []string{".git"}}
	table := ""
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '[' {
			table = strings.Trim(line, "[] \t")
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key, val = strings.Trim(strings.TrimSpace(key), `"`), strings.TrimSpace(val)
		// A trailing comment: after an array's closing bracket, or
		// after any other value (a number, a bool).
		if strings.HasPrefix(val, "[") {
			if i := strings.LastIndexByte(val, ']'); i >= 0 {
				val = val[:i+1]
			}
		} else if i := strings.IndexByte(val, '#'); i >= 0 && !strings.ContainsAny(val[:i], `"'`) {
			val = strings.TrimSpace(val[:i])
		}
		switch {
		case table == "" && key == "project_doc_max_bytes":
			if n, err := strconv.ParseInt(strings.ReplaceAll(val, "_", ""), 10, 64); err == nil && n >= 0 {
				c.maxBytes = n
			}
		case table == "" && key == "project_doc_fallback_filenames":
			if l, ok := tomlStrings(val); ok {
				c.fallbacks = l
			}
		case table == "" && key == "project_root_markers":
			if l, ok := tomlStrings(val); ok {
				c.markers = l
			}
		case table == "features" && (key == "hooks" || key == "codex_hooks"):
			c.hooksOff = val == "false"
		case table == "" && (key == "features.hooks" || key == "features.codex_hooks"):
			c.hooksOff = val == "false"
		}
	}
	return c
}

// tomlStrings reads a one-line TOML array of basic or literal strings.
func tomlStrings(val string) ([]string, bool) {
	val = strings.TrimSpace(val)
	if len(val) < 2 || val[0] != '[' || val[len(val)-1] != ']' {
		return nil, false
	}
	out := []string{}
	for item := range strings.SplitSeq(val[1:len(val)-1], ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if len(item) < 2 || (item[0] != '"' && item[0] != '\'') || item[len(item)-1] != item[0] {
			return nil, false
		}
		s := item[1 : len(item)-1]
		if item[0] == '"' {
			u, err := strconv.Unquote(item)
			if err != nil {
				return nil, false
			}
			s = u
		}
		out = append(out, s)
	}
	return out, true
}

// codexNative follows Codex CLI's project docs (codex-rs
// core/src/project_doc.rs): the directories from the nearest ancestor
// holding a project_root_markers entry (default .git; none found: the cwd
// alone) down to the cwd, symlinks resolved; in each the first of
// AGENTS.override.md, AGENTS.md and project_doc_fallback_filenames; the
// concatenation cut at project_doc_max_bytes (default 32 KiB; 0 turns
// project docs off), a whitespace-only file not counted.
func codexNative(cwd string, env Env) Native {
	cfg := readCodexConfig(filepath.Join(CodexHome(env), "config.toml"))
	names := []string{"AGENTS.override.md", "AGENTS.md"}
	for _, f := range cfg.fallbacks {
		if f != "" && !slices.Contains(names, f) {
			names = append(names, f)
		}
	}
	n := Native{Harness: Codex, Known: true, Names: names, files: map[string]int64{},
		How: fmt.Sprintf("Codex CLI project docs: %s from the project root (markers %s) to the cwd, project_doc_max_bytes %d",
			strings.Join(names, ", "), strings.Join(cfg.markers, ","), cfg.maxBytes)}
	if cfg.maxBytes == 0 {
		return n
	}
	dir := realPath(cwd)
	chain := []string{dir}
	found := false
	for d := dir; ; {
		if slices.ContainsFunc(cfg.markers, func(m string) bool { _, err := os.Lstat(filepath.Join(d, m)); return err == nil }) {
			found = true
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
		chain = append(chain, d)
	}
	if !found {
		chain = chain[:1]
	}
	slices.Reverse(chain)
	remaining := cfg.maxBytes
	for _, d := range chain {
		if remaining <= 0 {
			break
		}
		for _, name := range names {
			p := filepath.Join(d, name)
			fi, err := os.Lstat(p)
			if err != nil || !(fi.Mode().IsRegular() || fi.Mode()&os.ModeSymlink != 0) {
				continue
			}
			data, size, err := readPrefix(p, remaining)
			if err == nil && len(bytes.TrimSpace(data)) > 0 {
				kept := int64(-1)
				if size > remaining {
					kept = remaining
				}
				n.files[realPath(p)] = kept
				remaining -= int64(len(data))
			}
			break
		}
	}
	return n
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

// ---- Claude Code ----

// ClaudeConfigDir is Claude Code's user configuration directory:
// $CLAUDE_CONFIG_DIR, else ~/.claude.
func ClaudeConfigDir(env Env) string {
	if v := env.get("CLAUDE_CONFIG_DIR"); v != "" {
		return v
	}
	return filepath.Join(env.Home, ".claude")
}

// ClaudeAgentsMdSince is the first Claude Code release that loads
// AGENTS.md by itself (its changelog: "in a project with no CLAUDE.md,
// Claude Code reads AGENTS.md instead").
const ClaudeAgentsMdSince = "2.1.277"

// claudeNative: Claude Code loads CLAUDE.md, .claude/CLAUDE.md and
// CLAUDE.local.md in the cwd and every ancestor; from 2.1.277 also
// AGENTS.md and .claude/AGENTS.md, by its "Project instructions" setting
// (projectInstructions: "agents-fallback", the default, where a directory
// has no CLAUDE.md; "both"; "claude"; "none"), except on Bedrock, Vertex
// and Foundry.
func claudeNative(cwd string, env Env) Native {
	n := Native{Harness: Claude, files: map[string]int64{}, Names: []string{"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"}}
	n.Version = harnessVersion(Claude, env)
	mode := claudeProjectInstructions(cwd, env)
	agents := false
	switch {
	case n.Version == "":
		n.How = "Claude Code's version was not found (no claude on PATH): lineage cannot tell whether it loads AGENTS.md"
	case versionLess(n.Version, ClaudeAgentsMdSince):
		n.Known = true
		n.How = "Claude Code " + n.Version + " loads CLAUDE.md files only (AGENTS.md from " + ClaudeAgentsMdSince + ")"
	case env.get("CLAUDE_CODE_USE_BEDROCK") != "" || env.get("CLAUDE_CODE_USE_VERTEX") != "" || env.get("CLAUDE_CODE_USE_FOUNDRY") != "":
		n.Known = true
		n.How = "Claude Code " + n.Version + " on Bedrock, Vertex or Foundry loads CLAUDE.md files only"
	default:
		n.Known = true
		n.How = "Claude Code " + n.Version + ", project instructions " + strconv.Quote(mode)
		switch mode {
		case "none":
			n.Names = nil
		case "both", "agents-fallback":
			agents = true
			n.Names = append(n.Names, "AGENTS.md", ".claude/AGENTS.md")
		}
	}
	for d := cwd; ; {
		claudeFile := false
		if n.Names != nil {
			for _, name := range []string{"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"} {
				if p := filepath.Join(d, name); isFile(p) {
					n.files[realPath(p)] = -1
					claudeFile = true
				}
			}
		}
		if agents && (mode == "both" || !claudeFile) {
			for _, name := range []string{"AGENTS.md", ".claude/AGENTS.md"} {
				if p := filepath.Join(d, name); isFile(p) {
					n.files[realPath(p)] = -1
				}
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return n
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// claudeProjectInstructions is the projectInstructions setting, local
// settings over project settings over user settings; default
// "agents-fallback".
func claudeProjectInstructions(cwd string, env Env) string {
	for _, p := range []string{
		filepath.Join(cwd, ".claude", "settings.local.json"),
		filepath.Join(cwd, ".claude", "settings.json"),
		filepath.Join(ClaudeConfigDir(env), "settings.json"),
	} {
		var s struct {
			ProjectInstructions string `json:"projectInstructions"`
		}
		if readJSON(p, &s) && s.ProjectInstructions != "" {
			return s.ProjectInstructions
		}
	}
	return "agents-fallback"
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

// ---- Gemini CLI ----

// GeminiHome is the directory Gemini CLI keeps .gemini in:
// $GEMINI_CLI_HOME, else the home directory.
func GeminiHome(env Env) string {
	if v := env.get("GEMINI_CLI_HOME"); v != "" {
		return v
	}
	return env.Home
}

// geminiSettings is what lineage reads of a Gemini CLI settings file.
type geminiSettings struct {
	Context struct {
		FileName jsontext.Value `json:"fileName"`
	} `json:"context"`
	HooksConfig struct {
		Enabled *bool `json:"enabled"`
	} `json:"hooksConfig"`
}

func geminiFileNames(v jsontext.Value) []string {
	var one string
	if json.Unmarshal(v, &one) == nil && one != "" {
		return []string{one}
	}
	var many []string
	if json.Unmarshal(v, &many) == nil && len(many) > 0 {
		return many
	}
	return nil
}

// geminiNative: Gemini CLI loads every context.fileName file (default
// GEMINI.md; workspace settings over user settings) in the directories
// from the project root (the nearest .git; none: the home directory) down
// to the cwd, and below the cwd.
func geminiNative(cwd string, env Env) Native {
	names := []string{"GEMINI.md"}
	for _, p := range []string{filepath.Join(cwd, ".gemini", "settings.json"), filepath.Join(GeminiHome(env), ".gemini", "settings.json")} {
		var s geminiSettings
		if readJSON(p, &s) {
			if l := geminiFileNames(s.Context.FileName); l != nil {
				names = l
				break
			}
		}
	}
	n := Native{Harness: Gemini, Known: true, Names: names, files: map[string]int64{},
		How: "Gemini CLI context.fileName " + strings.Join(names, ", ")}
	for d := cwd; ; {
		for _, name := range names {
			if p := filepath.Join(d, name); isFile(p) {
				n.files[realPath(p)] = -1
			}
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil || d == env.Home {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return n
}

// ---- versions ----

// harnessVersion finds h's version without running it: the package.json
// of the npm package its program on PATH belongs to, or a version-named
// directory on the program's real path (Claude Code's native installs keep
// versions/<version>). LINEAGE_<HARNESS>_VERSION overrides both.
func harnessVersion(h *Harness, env Env) string {
	if v := env.get("LINEAGE_" + strings.ToUpper(h.Name) + "_VERSION"); v != "" {
		return v
	}
	prog := h.Name
	path := ""
	if env.Lookup != nil {
		if p, ok := env.Lookup("PATH"); ok {
			for _, dir := range filepath.SplitList(p) {
				if dir == "" {
					continue
				}
				c := filepath.Join(dir, prog)
				if fi, err := os.Stat(c); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
					path = c
					break
				}
			}
		}
	} else if p, err := exec.LookPath(prog); err == nil {
		path = p
	}
	if path == "" {
		return ""
	}
	real := realPath(path)
	for d, i := filepath.Dir(real), 0; i < 5; d, i = filepath.Dir(d), i+1 {
		var pkg struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		}
		if readJSON(filepath.Join(d, "package.json"), &pkg) && strings.HasPrefix(pkg.Name, packagePrefix(h)) && pkg.Version != "" {
			return pkg.Version
		}
		if base := filepath.Base(d); isVersion(base) {
			return base
		}
	}
	return ""
}

func packagePrefix(h *Harness) string {
	switch h {
	case Claude:
		return "@anthropic-ai/claude-code"
	case Codex:
		return "@openai/codex"
	case Gemini:
		return "@google/gemini-cli"
	}
	return "\x00"
}

func isVersion(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			return false
		}
	}
	return true
}

// versionLess compares dotted numeric versions (a pre-release suffix
// after '-' is ignored).
func versionLess(a, b string) bool {
	pa, pb := strings.Split(strings.SplitN(a, "-", 2)[0], "."), strings.Split(strings.SplitN(b, "-", 2)[0], ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}
