package sessions

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

func init() {
	locators = append(locators, struct {
		harness Harness
		locate  Locator
	}{Codex, locateCodex}, struct {
		harness Harness
		locate  Locator
	}{Gemini, locateGemini})
}

// CodexHome is Codex CLI's folder: CODEX_HOME, else ~/.codex.
func CodexHome(env Env) string {
	if d := env.Getenv("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(env.Home, ".codex")
}

// GeminiDir is Gemini CLI's folder: $GEMINI_CLI_HOME/.gemini, else
// ~/.gemini.
func GeminiDir(env Env) string {
	if d := env.Getenv("GEMINI_CLI_HOME"); d != "" {
		return filepath.Join(d, ".gemini")
	}
	return filepath.Join(env.Home, ".gemini")
}

// locateCodex lists the rollouts under sessions/; a project's are those
// whose session_meta names a working directory inside it.
func locateCodex(env Env, project string, all bool) ([]Source, error) {
	root := filepath.Join(CodexHome(env), "sessions")
	var out []Source
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == root {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") &&
			(all || under(codexCwd(p), project)) {
			out = append(out, Source{Harness: Codex, Path: p})
		}
		return nil
	})
	return out, err
}

// codexCwd is the working directory a rollout's first line names.
func codexCwd(path string) string {
	r, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return ""
	}
	defer r.Close()
	f, err := r.Open(filepath.Base(path))
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	var m struct {
		Payload struct {
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &m) != nil {
		return ""
	}
	return m.Payload.Cwd
}

// locateGemini lists the session logs of tmp/<project>/chats: the
// project's folder is named in projects.json or by the .project_root file
// inside it. Subagent logs come with their session (Batch.Related).
func locateGemini(env Env, project string, all bool) ([]Source, error) {
	tmp := filepath.Join(GeminiDir(env), "tmp")
	entries, err := os.ReadDir(tmp)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names := geminiProjects(env)
	var out []Source
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		if !all && names[project] != e.Name() && strings.TrimSpace(readFirst(filepath.Join(dir, ".project_root"))) != project {
			continue
		}
		chats, err := os.ReadDir(filepath.Join(dir, "chats"))
		if err != nil {
			continue
		}
		for _, c := range chats {
			if c.Type().IsRegular() && strings.HasPrefix(c.Name(), "session-") && strings.HasSuffix(c.Name(), ".jsonl") {
				out = append(out, Source{Harness: Gemini, Path: filepath.Join(dir, "chats", c.Name())})
			}
		}
	}
	return out, nil
}

// geminiProjects reads projects.json: project path → folder name.
func geminiProjects(env Env) map[string]string {
	var m struct {
		Projects map[string]string `json:"projects"`
	}
	data, err := os.ReadFile(filepath.Join(GeminiDir(env), "projects.json"))
	if err != nil {
		return nil
	}
	if json.Unmarshal(data, &m) == nil && m.Projects != nil {
		return m.Projects
	}
	var flat map[string]string
	_ = json.Unmarshal(data, &flat)
	return flat
}

func readFirst(path string) string {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 4096 {
		return ""
	}
	return string(data)
}

// Sniff tells which harness wrote a transcript from its first line:
// Codex lines carry an ordinal and a payload, a Gemini log starts with a
// header naming its project hash, a Claude line has a type and a session
// id. ok is false when the line is none of these.
func Sniff(path string) (h Harness, ok bool) {
	r, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return "", false
	}
	defer r.Close()
	f, err := r.Open(filepath.Base(path))
	if err != nil {
		return "", false
	}
	defer f.Close()
	line, _ := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	var l struct {
		Type        string         `json:"type"`
		Ordinal     *int64         `json:"ordinal"`
		Payload     jsontext.Value `json:"payload"`
		SessionID   string         `json:"sessionId"`
		ProjectHash string         `json:"projectHash"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &l) != nil {
		return "", false
	}
	switch {
	case l.Ordinal != nil && len(l.Payload) > 0:
		return Codex, true
	case l.Type == "" && l.SessionID != "" && l.ProjectHash != "":
		return Gemini, true
	case l.Type != "":
		return Claude, true
	}
	return "", false
}
