package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"pgregory.net/rapid"

	"github.com/agentlineage/lineage/tract"
)

// TestNamesThatAreNotUTF8 is a property over random byte names: a
// project whose rule files, skill folders, agent folders and
// directories carry names of any bytes (most not valid UTF-8) never
// fails a whole call of the walkers' tools: instructions_initial and
// _resolve, context_compile, skills_list, agents_context. Each such name
// is skipped or shown (quoted in text, U+FFFD in JSON with the bytes
// beside it as pathBytes); the valid entries around it still come back.
func TestNamesThatAreNotUTF8(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("the file system here refuses or rewrites names that are not UTF-8")
	}
	name := rapid.Custom(func(t *rapid.T) string {
		b := rapid.SliceOfN(rapid.Byte(), 1, 12).Draw(t, "bytes")
		s := strings.NewReplacer("/", "x", "\x00", "y").Replace(string(b))
		if s == "." || s == ".." {
			s += "z"
		}
		return s
	})
	rapid.Check(t, func(rt *rapid.T) {
		dir := project(t)
		writeFile(t, filepath.Join(dir, ".agents", "rules", "good.md"), "good rule\n")
		writeFile(t, filepath.Join(dir, ".agents", "skills", "good", "SKILL.md"), "---\nname: good\ndescription: a good skill\n---\nbody\n")
		writeFile(t, filepath.Join(dir, ".clia", "agents", "tau", "tau@ws.agent.triad.json"),
			`{"schemaVersion":"0.4.0","slug":"tau","title":"Tau","guardrails":["no force push"]}`+"\n")
		bad := false
		for _, n := range rapid.SliceOfN(name, 1, 4).Draw(rt, "names") {
			bad = bad || !utf8.ValidString(n)
			for _, p := range []string{
				filepath.Join(dir, ".agents", "rules", n+".md"),
				filepath.Join(dir, ".agents", "skills", n, "SKILL.md"),
				filepath.Join(dir, ".clia", "agents", n, "x.agent.triad.json"),
				filepath.Join(dir, "sub", n, "AGENTS.md"),
			} {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					rt.Skipf("the file system refuses %q: %v", n, err)
				}
				os.WriteFile(p, []byte("---\nname: x\ndescription: y\n---\nz\n"), 0o644)
			}
		}
		_, repo := newStore(t)
		srv, err := New(Options{Cwd: dir, StateDir: t.TempDir(), OpenTract: func(context.Context) (*tract.Repo, error) { return repo, nil }})
		if err != nil {
			rt.Fatal(err)
		}
		cs := inProcess(t, srv)
		for tool, args := range map[string]map[string]any{
			"instructions_initial": {},
			"instructions_resolve": {"paths": []string{filepath.Join(dir, "sub", "x.go")}},
			"context_compile":      {},
			"skills_list":          {},
			"agents_context":       {"slug": "tau"},
		} {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
			if err != nil || res.IsError {
				rt.Fatalf("%s (bad names: %v): %v %s", tool, bad, err, contentText(res))
			}
			text := contentText(res)
			if !utf8.ValidString(text) {
				rt.Fatalf("%s: text is not valid UTF-8", tool)
			}
			switch tool {
			case "instructions_initial", "context_compile":
				if !strings.Contains(text, "good rule") {
					rt.Fatalf("%s lost the valid rule: %.300s", tool, text)
				}
			case "skills_list":
				if !strings.Contains(text, `"good"`) {
					rt.Fatalf("skills_list lost the valid skill: %.300s", text)
				}
			}
		}
	})
}
