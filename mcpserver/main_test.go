package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// The test binary doubles as the server process: with LINEAGE_MCP_TEST_SERVE
// set it serves stdio, so tests drive a real process over real pipes.
func TestMain(m *testing.M) {
	if os.Getenv("LINEAGE_MCP_TEST_SERVE") == "1" {
		os.Exit(serveFromEnv())
	}
	os.Exit(m.Run())
}

func serveFromEnv() int {
	poll, _ := time.ParseDuration(os.Getenv("LINEAGE_MCP_TEST_POLL"))
	maxTokens, _ := strconv.Atoi(os.Getenv("LINEAGE_MCP_TEST_MAX_TOKENS"))
	var open TractOpener
	if path := os.Getenv("LINEAGE_MCP_TEST_STORE"); path != "" {
		open = func(ctx context.Context) (*tract.Repo, error) {
			st, err := sqlite.Open(ctx, path, sqlite.Options{})
			if err != nil {
				return nil, err
			}
			return tract.New(st, tract.Options{}), nil
		}
	}
	var openSessions SessionsOpener
	if path := os.Getenv("LINEAGE_MCP_TEST_SESSIONS"); path != "" {
		openSessions = func(ctx context.Context) (*tract.Repo, func(), error) {
			st, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: true})
			if err != nil {
				return nil, nil, err
			}
			return tract.New(st, tract.Options{}), func() { st.Close() }, nil
		}
	}
	var openWrite SessionsOpener
	if path := os.Getenv("LINEAGE_MCP_TEST_SESSIONS"); path != "" && os.Getenv("LINEAGE_MCP_TEST_HANDOFFS") != "" {
		openWrite = func(ctx context.Context) (*tract.Repo, func(), error) {
			st, err := sqlite.Open(ctx, path, sqlite.Options{})
			if err != nil {
				return nil, nil, err
			}
			return tract.New(st, tract.Options{}), func() { st.Close() }, nil
		}
	}
	var cfg *instructions.Config
	if path := os.Getenv("LINEAGE_MCP_TEST_CONFIG"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		set, err := instructions.ParseConfig(data)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		c := instructions.BuildConfig(os.Getenv("LINEAGE_MCP_TEST_CWD"), set)
		cfg = &c
	}
	srv, err := New(Options{
		Instructions:      cfg,
		OpenTract:         open,
		OpenSessions:      openSessions,
		SessionsAll:       os.Getenv("LINEAGE_MCP_TEST_SESSIONS_ALL") == "1",
		OpenSessionsWrite: openWrite,
		HandoffDir:        os.Getenv("LINEAGE_MCP_TEST_HANDOFFS"),
		Cwd:               os.Getenv("LINEAGE_MCP_TEST_CWD"),
		StateDir:          os.Getenv("LINEAGE_MCP_TEST_STATE_DIR"),
		Stateless:         os.Getenv("LINEAGE_MCP_TEST_STATELESS") == "1",
		PollInterval:      poll,
		MaxResultTokens:   maxTokens,
		AllowRoots:        strings.Fields(os.Getenv("LINEAGE_MCP_TEST_ALLOW_ROOTS")),
		RootsWithin:       strings.Fields(os.Getenv("LINEAGE_MCP_TEST_ROOTS_WITHIN")),
		Logger:            slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := srv.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// serverProc describes a server process to start.
type serverProc struct {
	cwd, stateDir string
	store         string
	sessions      string
	sessionsAll   bool
	// handoffs is the folder of pending handoffs: set, the server may
	// write the sessions store (session_handoff).
	handoffs    string
	stateless   bool
	poll        time.Duration
	maxTokens   int
	allowRoots  []string
	rootsWithin []string
	// config is an instructions JSON configuration file (the CLI's
	// --config), "" for the defaults.
	config string
}

func (p serverProc) command(t testing.TB) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(),
		"LINEAGE_MCP_TEST_SERVE=1",
		"LINEAGE_MCP_TEST_CWD="+p.cwd,
		"LINEAGE_MCP_TEST_STATE_DIR="+p.stateDir,
		"LINEAGE_MCP_TEST_POLL="+p.poll.String(),
		"LINEAGE_MCP_TEST_MAX_TOKENS="+strconv.Itoa(p.maxTokens),
		"LINEAGE_MCP_TEST_STORE="+p.store,
		"LINEAGE_MCP_TEST_SESSIONS="+p.sessions,
		"LINEAGE_MCP_TEST_HANDOFFS="+p.handoffs,
		"LINEAGE_MCP_TEST_ALLOW_ROOTS="+strings.Join(p.allowRoots, " "),
		"LINEAGE_MCP_TEST_ROOTS_WITHIN="+strings.Join(p.rootsWithin, " "),
		"LINEAGE_MCP_TEST_CONFIG="+p.config,
	)
	if p.sessionsAll {
		cmd.Env = append(cmd.Env, "LINEAGE_MCP_TEST_SESSIONS_ALL=1")
	}
	if p.stateless {
		cmd.Env = append(cmd.Env, "LINEAGE_MCP_TEST_STATELESS=1")
	}
	cmd.Stderr = os.Stderr
	return cmd
}

// connectStdio starts a server process and connects an SDK client to it
// over its stdin/stdout.
func connectStdio(t testing.TB, p serverProc, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, opts)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: p.command(t)}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// project makes a repository with AGENTS.md at its root and in sub/ and
// returns its directory.
func project(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	writeFile(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(dir, "AGENTS.md"), "root rules\n")
	writeFile(t, filepath.Join(dir, "sub", "AGENTS.md"), "sub rules\n")
	writeFile(t, filepath.Join(dir, "sub", "deep", "AGENTS.md"), "deep rules\n")
	return dir
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// call calls a tool, decodes its structured result into out and returns
// its text content; a tool error fails the test.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, contentText(res))
	}
	if err := remarshal(res.StructuredContent, out); err != nil {
		t.Fatalf("%s: decode result: %v", name, err)
	}
	return contentText(res)
}

// callError calls a tool that must fail and returns its message.
func callError(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return err.Error()
	}
	if !res.IsError {
		t.Fatalf("%s: want an error, got %s", name, contentText(res))
	}
	return contentText(res)
}

func contentText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	s := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			s += tc.Text
		}
	}
	return s
}
