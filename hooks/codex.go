package hooks

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentlineage/lineage/instructions"
)

// Codex CLI: what it loads by itself (its project docs and config.toml)
// and the paths its tools name.

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

// codexPaths: Codex CLI reports its edits as apply_patch with the patch
// text in tool_input.command; the files are named on the patch's
// "*** Add File:", "*** Update File:", "*** Delete File:" and
// "*** Move to:" lines. Its shell tool (Bash) names no paths.
func codexPaths(tool string, input map[string]any) ([]string, error) {
	if tool != "apply_patch" {
		return nil, nil
	}
	patches, err := str(input, "command", "patch", "input")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, patch := range patches {
		for line := range strings.Lines(patch) {
			line = strings.TrimRight(line, "\r\n")
			for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
				if rest, ok := strings.CutPrefix(line, p); ok {
					out = append(out, strings.TrimSpace(rest))
				}
			}
		}
	}
	return out, nil
}
