package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// TestTypeScriptSDK drives the server with the official TypeScript MCP SDK
// client (npm @modelcontextprotocol/sdk, the library under Claude Code,
// Gemini CLI and the MCP Inspector), its validation on: over stdio with
// roots, without the roots capability, with a failing and with a hanging
// roots/list, and over streamable HTTP; the sessions tools over a store of
// two imported sessions, one outside the client's root. LINEAGE_TS_SDK is the node_modules
// directory holding the SDK (.ci/run installs it from
// testdata/tsclient/package-lock.json).
func TestTypeScriptSDK(t *testing.T) {
	sdk := os.Getenv("LINEAGE_TS_SDK")
	if sdk == "" {
		t.Skip("LINEAGE_TS_SDK is not set: install testdata/tsclient with npm ci and point it at its node_modules (.ci/run does)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("LINEAGE_TS_SDK is set but node is not on PATH: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sdk, "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("LINEAGE_TS_SDK=%s holds no @modelcontextprotocol/sdk: %v", sdk, err)
	}
	// Node resolves packages beside the script: run a copy of it next to a
	// link to the installed node_modules.
	scriptDir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", "tsclient", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(scriptDir, "client.mjs"), string(script))
	if err := os.Symlink(sdk, filepath.Join(scriptDir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, mode, dir string, env ...string) {
		cmd := exec.Command(node, filepath.Join(scriptDir, "client.mjs"), mode, dir)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "ok "+mode) {
			t.Fatalf("%v\n%s", err, out)
		}
		t.Logf("%s", out)
	}
	// The instruction settings reach the server (an excluded
	// vendor/AGENTS.md is not delivered, a global file outside the root is
	// loaded), and the initial resource has text where nothing loads.
	t.Run("settings", func(t *testing.T) {
		dir := project(t)
		writeFile(t, filepath.Join(dir, "vendor", "AGENTS.md"), "vendor rules\n")
		team := filepath.Join(t.TempDir(), "TEAM.md")
		writeFile(t, team, "team rules\n")
		cfgJSON, _ := json.Marshal(map[string]any{"excludes": []string{"vendor/**"}, "globalFiles": []string{team}})
		cfg := filepath.Join(t.TempDir(), "cfg.json")
		writeFile(t, cfg, string(cfgJSON))
		cmd := serverProc{cwd: dir, stateDir: t.TempDir(), config: cfg}.command(t)
		server, _ := json.Marshal(append([]string{exe}, cmd.Args[1:]...))
		run(t, "settings", dir, append(cmd.Env[len(os.Environ()):], "LINEAGE_TS_SERVER="+string(server), "LINEAGE_TS_GLOBAL="+team)...)
		empty := t.TempDir()
		writeFile(t, filepath.Join(empty, ".git", "HEAD"), "ref: refs/heads/main\n")
		cmd = serverProc{cwd: empty, stateDir: t.TempDir()}.command(t)
		server, _ = json.Marshal(append([]string{exe}, cmd.Args[1:]...))
		run(t, "empty", empty, append(cmd.Env[len(os.Environ()):], "LINEAGE_TS_SERVER="+string(server))...)
	})
	// The skills catalog in the instructions leaves out what the client's
	// harness lists itself (Claude Code: .claude/skills).
	t.Run("claude-skills", func(t *testing.T) {
		dir := project(t)
		writeFile(t, filepath.Join(dir, ".agents", "skills", "release-check", "SKILL.md"), skillFile("release-check", "Run the release checklist.", "x"))
		writeFile(t, filepath.Join(dir, ".claude", "skills", "pdf", "SKILL.md"), skillFile("pdf", "Fill PDF forms.", "x"))
		cmd := serverProc{cwd: dir, stateDir: t.TempDir()}.command(t)
		server, _ := json.Marshal(append([]string{exe}, cmd.Args[1:]...))
		run(t, "claude-skills", dir, append(cmd.Env[len(os.Environ()):], "LINEAGE_TS_SERVER="+string(server))...)
	})
	for _, mode := range []string{"roots", "noroots", "failroots", "hangroots", "http"} {
		t.Run(mode, func(t *testing.T) {
			dir := agentsProject(t)
			store, repo := newStore(t)
			if _, _, err := instructions.StartSession(context.Background(), filepath.Join(dir, "state.json"), instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir}); err != nil {
				t.Fatal(err)
			}
			// Two imported sessions: one in the project (the client's
			// root), one elsewhere that the sessions tools must not show.
			sess := sessionsStore(t, dir, t.TempDir())
			if mode == "http" {
				ts := httpServer(t, Options{Cwd: dir, StateDir: t.TempDir(), OpenTract: func(context.Context) (*tract.Repo, error) { return repo, nil },
					OpenSessions: func(ctx context.Context) (*tract.Repo, func(), error) {
						st, err := sqlite.Open(ctx, sess, sqlite.Options{ReadOnly: true})
						if err != nil {
							return nil, nil, err
						}
						return tract.New(st, tract.Options{}), func() { st.Close() }, nil
					},
					OpenSessionsWrite: func(ctx context.Context) (*tract.Repo, func(), error) {
						st, err := sqlite.Open(ctx, sess, sqlite.Options{})
						if err != nil {
							return nil, nil, err
						}
						return tract.New(st, tract.Options{}), func() { st.Close() }, nil
					},
					HandoffDir: t.TempDir()}, HTTPOptions{})
				run(t, mode, dir, "LINEAGE_TS_URL="+ts.URL+HTTPPath)
				return
			}
			cmd := serverProc{cwd: dir, stateDir: t.TempDir(), store: store, sessions: sess, handoffs: t.TempDir()}.command(t)
			server, _ := json.Marshal(append([]string{exe}, cmd.Args[1:]...))
			run(t, mode, dir, append(cmd.Env[len(os.Environ()):], "LINEAGE_TS_SERVER="+string(server))...)
		})
	}
}
