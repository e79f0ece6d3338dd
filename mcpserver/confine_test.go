package mcpserver

import (
	"context"
	"errors"
	"github.com/agentlineage/lineage/internal/platformtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// confinedProject is an agents project (the allowed root) beside a
// directory outside it holding a secret, with a symlinked directory and
// file inside leading out.
func confinedProject(t *testing.T) (dir, outside string) {
	t.Helper()
	dir = agentsProject(t)
	outside = filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-outside")
	writeFile(t, filepath.Join(outside, "secret.txt"), "TOP SECRET\n")
	writeFile(t, filepath.Join(outside, ".git", "HEAD"), "ref: refs/heads/main\n")
	t.Cleanup(func() { os.RemoveAll(outside) })
	platformtest.Symlink(t, outside, filepath.Join(dir, "out"))
	platformtest.Symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(dir, "secret-link"))
	return dir, outside
}

// Every path argument of every tool, and the resource's ?cwd=, is refused
// when it leads outside the allowed roots: by "..", as an absolute path,
// through a symlinked directory or file. The message names the path and
// the allowed root.
func TestPathArgumentsOutsideTheRootsAreRefused(t *testing.T) {
	dir, outside := confinedProject(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	bad := map[string]string{
		"traversal":            "../" + filepath.Base(outside),
		"absolute":             outside,
		"symlink dir":          "out",
		"symlink file":         "secret-link",
		"dotdot after symlink": "out/../" + filepath.Base(outside),
	}
	args := []struct {
		tool string
		args func(p string) map[string]any
	}{
		{"instructions_initial", func(p string) map[string]any { return map[string]any{"cwd": p} }},
		{"instructions_resolve", func(p string) map[string]any { return map[string]any{"paths": []string{"sub", p}} }},
		{"instructions_resume", func(p string) map[string]any { return map[string]any{"state": p} }},
		{"agents_context", func(p string) map[string]any { return map[string]any{"slug": "tau", "path": p} }},
		{"agents_profile", func(p string) map[string]any { return map[string]any{"slug": "tau", "path": p} }},
		{"agents_journal", func(p string) map[string]any { return map[string]any{"slug": "tau", "note": "n", "path": p} }},
		{"agents_log", func(p string) map[string]any { return map[string]any{"slug": "tau", "note": "n", "path": p} }},
		{"agents_commission", func(p string) map[string]any { return map[string]any{"slug": "tau", "path": p} }},
		{"agents_agenda", func(p string) map[string]any { return map[string]any{"path": p} }},
	}
	for _, a := range args {
		for name, p := range bad {
			got := callError(t, cs, a.tool, a.args(p))
			if !strings.Contains(got, p) || !strings.Contains(got, "outside the allowed roots: "+dir) {
				t.Errorf("%s, %s %q: error %q must name the path and the allowed root", a.tool, name, p, got)
			}
		}
	}
	for name, p := range bad {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: InitialResourceURI + "?cwd=" + p})
		var je *jsonrpc.Error
		if err == nil || !strings.Contains(err.Error(), "outside the allowed roots") || !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("resource ?cwd=, %s %q: error %v, want code %d naming the roots", name, p, err, jsonrpc.CodeInvalidParams)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, ".clia")); !os.IsNotExist(err) {
		t.Fatalf("a journal write landed outside the roots: %v", err)
	}
}

// An AGENTS.md inside the root that is a symlink to a file outside is
// reported as outside, never read.
func TestAgentsFileLeadingOutsideIsNotRead(t *testing.T) {
	dir, outside := confinedProject(t)
	os.Remove(filepath.Join(dir, "sub", "AGENTS.md"))
	platformtest.Symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(dir, "sub", "AGENTS.md"))
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	var in InitialOutput
	call(t, cs, "instructions_initial", map[string]any{"cwd": "sub"}, &in)
	if strings.Contains(in.Text, "SECRET") || len(in.Outside) != 1 || in.Outside[0].Path != filepath.Join(dir, "sub", "AGENTS.md") ||
		!strings.Contains(in.Outside[0].Reason, filepath.Join(outside, "secret.txt")) {
		t.Fatalf("initial = %+v", in)
	}
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: InitialResourceURI + "?cwd=" + filepath.Join(dir, "sub")})
	if err != nil || strings.Contains(res.Contents[0].Text, "SECRET") || !strings.Contains(res.Contents[0].Text, "root rules") {
		t.Fatalf("resource with an unencoded absolute cwd: %v %+v", err, res)
	}
}

// --allow-root adds a root: the directory outside becomes usable.
func TestAllowRootAddsARoot(t *testing.T) {
	dir, outside := confinedProject(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir(), allowRoots: []string{outside}}, nil)
	var in InitialOutput
	call(t, cs, "instructions_initial", map[string]any{"cwd": outside}, &in)
	if in.Root != outside {
		t.Fatalf("initial in the allowed root = %+v", in)
	}
	if got := callError(t, cs, "instructions_initial", map[string]any{"cwd": filepath.Dir(dir)}); !strings.Contains(got, "outside the allowed roots: "+dir+", "+outside) {
		t.Fatalf("error %q must list both roots", got)
	}
}

// --roots-within bounds what a client may declare: a client declaring "/"
// gets the bound, not the whole host; a root outside every bound is
// dropped; a root inside a bound is kept.
func TestRootsWithinBoundsClientRoots(t *testing.T) {
	dir, outside := confinedProject(t)
	withRoots := func(roots ...string) *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
		for _, r := range roots {
			client.AddRoots(&mcp.Root{URI: "file://" + r})
		}
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: serverProc{cwd: dir, stateDir: t.TempDir(), rootsWithin: []string{dir}}.command(t)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	// Unbounded, a client declaring / may read anywhere.
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	client.AddRoots(&mcp.Root{URI: "file:///"})
	open, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: serverProc{cwd: dir, stateDir: t.TempDir()}.command(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	var in InitialOutput
	call(t, open, "instructions_initial", map[string]any{"cwd": outside}, &in)

	cs := withRoots("/")
	if got := callError(t, cs, "instructions_initial", map[string]any{"cwd": outside}); !strings.Contains(got, "outside the allowed roots: "+dir) {
		t.Errorf("client root / within %s: %q", dir, got)
	}
	call(t, cs, "instructions_initial", map[string]any{"cwd": filepath.Join(dir, "sub")}, &in)
	if !strings.Contains(in.Text, "sub rules") {
		t.Errorf("inside the bound: %+v", in)
	}
	cs = withRoots(filepath.Join(dir, "sub"), outside)
	if got := callError(t, cs, "instructions_initial", map[string]any{"cwd": outside}); !strings.Contains(got, "outside the allowed roots: "+filepath.Join(dir, "sub")) {
		t.Errorf("a client root outside the bound must be dropped: %q", got)
	}
	if got := callError(t, cs, "instructions_initial", map[string]any{"cwd": dir}); !strings.Contains(got, "outside the allowed roots") {
		t.Errorf("a client root inside the bound stays the limit: %q", got)
	}
}
