package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A project-scope install is committed and shared: made in one checkout
// by one binary, the harness files must work in a second clone at another
// path, for a teammate whose lineage is another binary found on PATH. The
// Claude Code hook command from .claude/settings.json runs as Claude Code
// runs it (sh -c, the event on stdin) and answers with the second clone's
// AGENTS.md; the .mcp.json server starts and lists its tools.
func TestProjectInstallWorksInAnotherClone(t *testing.T) {
	bin := lineageBinary(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git to clone")
	}
	first := filepath.Join(t.TempDir(), "first")
	gitRun(t, "", "init", "-q", first)
	if err := os.WriteFile(filepath.Join(first, "AGENTS.md"), []byte("Shared rules for the team.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The team's instructions configuration, committed with the project:
	// it names TEAM.md instead of AGENTS.md, so only a hook that reads it
	// answers with that file.
	if err := os.MkdirAll(filepath.Join(first, "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(first, "conf", "instructions.json"), []byte(`{"fileNames": ["TEAM.md"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(first, "TEAM.md"), []byte("Team file named by the shared config.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"hook", "install", "claude", "--scope", "project", "--cwd", first, "--config", filepath.Join(first, "conf", "instructions.json")},
		{"mcp", "install", "claude", "--scope", "project", "--cwd", first},
	} {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("lineage %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	gitRun(t, first, "add", "-A")
	gitRun(t, first, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "lineage for the team")
	second := filepath.Join(t.TempDir(), "elsewhere", "second")
	gitRun(t, "", "clone", "-q", first, second)

	// The teammate's lineage: another copy, found only through PATH.
	pathDir := t.TempDir()
	teammate := filepath.Join(pathDir, "lineage")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(teammate, data, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + pathDir + string(os.PathListSeparator) + "/usr/bin" + string(os.PathListSeparator) + "/bin",
		"HOME=" + t.TempDir(), "LINEAGE_CLAUDE_VERSION=2.1.197"}

	for _, f := range []string{".claude/settings.json", ".mcp.json"} {
		b, err := os.ReadFile(filepath.Join(second, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, local := range []string{bin, filepath.Dir(bin), first} {
			if strings.Contains(string(b), local) {
				t.Errorf("%s names %s, a path of the machine it was installed on:\n%s", f, local, b)
			}
		}
	}

	hook := sessionStartCommand(t, filepath.Join(second, ".claude", "settings.json"))
	if !strings.Contains(hook, " --config conf/instructions.json") {
		t.Errorf("the shared hook %q does not name the config relative to the project", hook)
	}
	// Run as Claude Code runs it: in the project, and in a folder below it
	// with CLAUDE_PROJECT_DIR naming the project.
	sub := filepath.Join(second, "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{second, sub} {
		event, _ := json.Marshal(map[string]string{"session_id": "s-" + filepath.Base(dir), "cwd": dir, "hook_event_name": "SessionStart", "source": "startup"})
		run := exec.Command("sh", "-c", hook)
		run.Dir = dir
		run.Env = append(env, "CLAUDE_PROJECT_DIR="+second)
		run.Stdin = strings.NewReader(string(event))
		out, err := run.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Team file named by the shared config.") || !strings.Contains(string(out), filepath.Join(second, "TEAM.md")) {
			t.Fatalf("the hook %q in the second clone (in %s): %v\n%s", hook, dir, err, out)
		}
	}

	var mcpFile struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	b, _ := os.ReadFile(filepath.Join(second, ".mcp.json"))
	if err := json.Unmarshal(b, &mcpFile); err != nil {
		t.Fatal(err)
	}
	entry := mcpFile.MCPServers["lineage"]
	// Resolved as the harness resolves it: through the teammate's PATH.
	program, err := lookPathIn(entry.Command, pathDir)
	if err != nil {
		t.Fatalf(".mcp.json's server %q is not on the teammate's PATH: %v", entry.Command, err)
	}
	server := exec.Command(program, entry.Args...)
	server.Dir = second
	server.Env = env
	server.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`)
	stdout, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatalf(".mcp.json's server %q %v: %v", entry.Command, entry.Args, err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 16<<20)
	listed := false
	for sc.Scan() {
		listed = listed || strings.Contains(sc.Text(), `"id":2`) && strings.Contains(sc.Text(), `"context_compile"`)
	}
	io.Copy(io.Discard, stdout)
	server.Wait()
	if !listed {
		t.Errorf(".mcp.json's server %q %v in the second clone listed no tools", entry.Command, entry.Args)
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// sessionStartCommand is the command of lineage's SessionStart hook in a
// Claude Code settings file.
func sessionStartCommand(t *testing.T, path string) string {
	t.Helper()
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		t.Fatal(err)
	}
	for _, group := range settings.Hooks["SessionStart"] {
		for _, h := range group.Hooks {
			if strings.Contains(h.Command, " hook claude") {
				return h.Command
			}
		}
	}
	t.Fatalf("%s: no SessionStart hook of lineage:\n%s", path, b)
	return ""
}

// lookPathIn finds name in dir when it is a bare name (the PATH the test
// gives the teammate holds only dir and the system's directories).
func lookPathIn(name, dir string) (string, error) {
	if filepath.Base(name) != name {
		return name, nil
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}
