package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Gemini CLI: what it loads by itself (its context.fileName files) and
// the paths its tools name.

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
	// Its just-in-time context: after read_file, replace, write_file and
	// list_directory, the context.fileName files from the target's
	// directory up to the project root that it has not loaded yet, appended
	// to the tool's result — in a trusted folder only, which lineage knows
	// for sure only from GEMINI_CLI_TRUST_WORKSPACE.
	n.attach = []attachRule{{tools: []string{"read_file", "replace", "write_file", "list_directory"}, dirTools: []string{"list_directory"},
		names: names, maybe: !truthy(env.get("GEMINI_CLI_TRUST_WORKSPACE"))}}
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

// geminiPaths: Gemini CLI's file-system tools with the argument keys of its
// tools reference — read_file, write_file, replace (file_path),
// list_directory, glob, grep_search and its legacy alias
// search_file_content (dir_path; path in older releases), read_many_files
// (include: paths or glob patterns).
func geminiPaths(tool string, input map[string]any) ([]string, error) {
	switch tool {
	case "read_file", "write_file", "replace":
		return str(input, "file_path")
	case "list_directory", "glob", "grep_search", "search_file_content":
		return str(input, "dir_path", "path")
	case "read_many_files":
		key := "include"
		if input[key] == nil {
			key = "paths"
		}
		var items []any
		switch v := input[key].(type) {
		case nil:
		case []any:
			items = v
		default:
			return nil, fmt.Errorf("/%s: want an array of strings, got %s", key, jsonKind(v))
		}
		var out []string
		for i, it := range items {
			s, ok := it.(string)
			if !ok {
				return nil, fmt.Errorf("/%s/%d: want a string, got %s", key, i, jsonKind(it))
			}
			out = append(out, staticPrefix(s))
		}
		return out, nil
	}
	return nil, nil
}

// staticPrefix is the part of a glob pattern before its first wildcard:
// "src/**/*.ts" → "src/", a plain path unchanged.
func staticPrefix(pattern string) string {
	i := strings.IndexAny(pattern, "*?[{")
	if i < 0 {
		return pattern
	}
	p := pattern[:i]
	if j := strings.LastIndexAny(p, `/\`); j >= 0 {
		return p[:j+1]
	}
	return ""
}
