package memory

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/sessions"
)

// maxNativeBytes bounds a harness memory file read: Claude Code loads the
// first 25 KB of MEMORY.md, Gemini CLI's GEMINI.md is a short file.
const maxNativeBytes = 256 << 10

// GeminiSection is the heading under which Gemini CLI's save_memory tool
// appends what it was asked to remember, one "- " line each.
const GeminiSection = "## Gemini Added Memories"

// ParseClaudeMemory reads Claude Code's auto memory index (MEMORY.md):
// each list item or paragraph line is one memory; headings, blank lines,
// code fences and HTML comments are not.
func ParseClaudeMemory(data []byte) []string {
	var out []string
	fence, comment := false, false
	for _, line := range lines(data) {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = !fence
			continue
		case fence:
			continue
		case comment || strings.HasPrefix(t, "<!--"):
			comment = !strings.Contains(t, "-->")
			continue
		case t == "" || strings.HasPrefix(t, "#"):
			continue
		}
		if s := listItem(t); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// ParseGeminiMemories reads the "## Gemini Added Memories" section of a
// GEMINI.md: its "- " lines up to the next heading.
func ParseGeminiMemories(data []byte) []string {
	var out []string
	in := false
	for _, line := range lines(data) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") {
			in = t == GeminiSection
			continue
		}
		if !in || t == "" {
			continue
		}
		if s, ok := strings.CutPrefix(t, "- "); ok {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func lines(data []byte) []string {
	s := strings.ToValidUTF8(string(data), "\uFFFD")
	return strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
}

// listItem strips a Markdown list marker ("- ", "* ", "+ ", "1. ") and
// any checkbox from a trimmed line.
func listItem(t string) string {
	for _, p := range []string{"- ", "* ", "+ "} {
		if s, ok := strings.CutPrefix(t, p); ok {
			t = s
			break
		}
	}
	if i := strings.Index(t, ". "); i > 0 && i < 4 && strings.Trim(t[:i], "0123456789") == "" {
		t = t[i+2:]
	}
	t = strings.TrimPrefix(strings.TrimPrefix(t, "[ ] "), "[x] ")
	return strings.TrimSpace(t)
}

// NativeEnv is what finding a harness's memory files reads of the host.
type NativeEnv = sessions.Env

// NativeFile is one memory file a harness loads by itself.
type NativeFile struct {
	Harness string
	Scope   Kind
	Path    string
	parse   func([]byte) []string
}

// NativeFiles are the memory files the harnesses load by themselves for
// w: Claude Code's auto memory of the project (and of the folder, when it
// is not the project's), Gemini CLI's GEMINI.md in its home (user) and in
// the project.
func NativeFiles(env NativeEnv, w Where) []NativeFile {
	var out []NativeFile
	seen := map[string]bool{}
	for _, dir := range []string{w.Project, w.Cwd} {
		if dir == "" {
			continue
		}
		p := filepath.Join(sessions.ClaudeProjectDir(env, filepath.Clean(dir)), "memory", "MEMORY.md")
		if !seen[p] {
			seen[p] = true
			out = append(out, NativeFile{Harness: "claude", Scope: Project, Path: p, parse: ParseClaudeMemory})
		}
	}
	out = append(out, NativeFile{Harness: "gemini", Scope: User, Path: filepath.Join(sessions.GeminiDir(env), "GEMINI.md"), parse: ParseGeminiMemories})
	if w.Project != "" {
		out = append(out, NativeFile{Harness: "gemini", Scope: Project, Path: filepath.Join(w.Project, "GEMINI.md"), parse: ParseGeminiMemories})
	}
	return out
}

// Native reads the memories the harnesses keep themselves for w (see
// [NativeFiles]), each with its harness as its source and the file's time
// as its making. A missing file holds none; one lineage cannot read is a
// warning.
func Native(env NativeEnv, w Where) (out []Memory, warnings []string) {
	out = []Memory{}
	for _, f := range NativeFiles(env, w) {
		data, mtime, err := readNative(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			warnings = append(warnings, "memory file "+fsx.LineSafe(f.Path)+": "+err.Error())
			continue
		}
		for _, text := range f.parse(data) {
			m := Memory{Scope: f.Scope, Text: text, Source: f.Harness, File: f.Path, Created: mtime}
			if f.Scope == Project {
				m.Project = w.Project
			}
			out = append(out, m)
		}
	}
	return out, warnings
}

func readNative(path string) ([]byte, time.Time, error) {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, time.Time{}, err
	}
	defer root.Close()
	data, fi, err := fsx.ReadRegularIn(root, filepath.Base(path), maxNativeBytes)
	if err != nil {
		return nil, time.Time{}, err
	}
	return data, fi.ModTime().UTC(), nil
}
