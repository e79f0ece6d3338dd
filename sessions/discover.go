package sessions

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Env is what discovery reads of the host: variables and the home folder.
type Env struct {
	Getenv func(string) string
	Home   string
}

// Locator lists a harness's session files: those of the project folder,
// or of every project with all. A harness without a folder yet has none.
type Locator func(env Env, project string, all bool) ([]Source, error)

// locators are the harnesses' locators; each reader's file adds its own
// (a list, not a map: nothing is built at start-up).
var locators = []struct {
	harness Harness
	locate  Locator
}{{Claude, locateClaude}}

func locatorOf(h Harness) (Locator, bool) {
	for _, l := range locators {
		if l.harness == h {
			return l.locate, true
		}
	}
	return nil, false
}

// Discover lists the session files of the harnesses (all when empty) for
// the project folder, or for every project with all, sorted by harness
// and path.
func Discover(harnesses []Harness, env Env, project string, all bool) ([]Source, error) {
	if len(harnesses) == 0 {
		harnesses = Harnesses
	}
	var out []Source
	for _, h := range harnesses {
		loc, ok := locatorOf(h)
		if !ok {
			continue
		}
		srcs, err := loc(env, project, all)
		if err != nil {
			return nil, err
		}
		slices.SortFunc(srcs, func(a, b Source) int { return strings.Compare(a.Path, b.Path) })
		out = append(out, srcs...)
	}
	return out, nil
}

// ClaudeDir is Claude Code's configuration folder: CLAUDE_CONFIG_DIR, else
// ~/.claude.
func ClaudeDir(env Env) string {
	if d := env.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(env.Home, ".claude")
}

// ClaudeProjectDir is the folder of a project's transcripts: Claude names
// it after the project's path with every character other than a letter or
// a digit replaced by "-".
func ClaudeProjectDir(env Env, project string) string {
	b := []byte(project)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return filepath.Join(ClaudeDir(env), "projects", string(b))
}

func locateClaude(env Env, project string, all bool) ([]Source, error) {
	dirs := []string{ClaudeProjectDir(env, project)}
	if all {
		root := filepath.Join(ClaudeDir(env), "projects")
		entries, err := os.ReadDir(root)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		dirs = dirs[:0]
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(root, e.Name()))
			}
		}
	}
	var out []Source
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
				out = append(out, Source{Harness: Claude, Path: filepath.Join(d, e.Name())})
			}
		}
	}
	return out, nil
}
