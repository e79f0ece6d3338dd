package agents

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestInheritanceResolution(t *testing.T) {
	root := tempRoot(t)
	outside := tempRoot(t)
	tree(t, outside, map[string]string{"far.agent.json": `{"guardrails":["far"]}`})
	tree(t, root, map[string]string{
		".git":                       "<dir>",
		"directives/root.agent.json": `{"schemaVersion":"0.4.0","guardrails":["root-g"],"slug":"root","inherits":["./base.agent.json"]}`,
		"directives/base.agent.json": `{"schemaVersion":"0.4.0","guardrails":["base-g"],"inherits":["directives/root.agent.json"]}`,
		"sub/.git":                   "gitdir: x",
		"sub/shared/ext.agent.json":  `{"schemaVersion":"0.4.0","guardrails":["ext-g"]}`,
		"sub/shared/abs.agent.json":  `{"schemaVersion":"0.4.0","guardrails":["abs-g"]}`,
		"sub/.clia/agents/s/s@sub.agent.triad.json": fmt.Sprintf(`{"schemaVersion":"0.4.0","slug":"mine","guardrails":["local-g"],
			"inherits":["../../../../directives/root.agent.json","https://example.com/x.json","missing.agent.json",%q,%q],
			"extensions":{"inherits":["shared/ext.agent.json"]}}`, filepath.Join(outside, "far.agent.json"), filepath.Join(root, "sub/shared/abs.agent.json")),
	})
	opts := Options{Path: filepath.Join(root, "sub")}
	got, p := profileJSON(t, opts, "s", "agent")
	want := `"guardrails": [
    "base-g",
    "root-g",
    "abs-g",
    "ext-g",
    "local-g"
  ]`
	if !strings.Contains(got, want) {
		t.Errorf("profile =\n%s\nwant guardrails %s", got, want)
	}
	if !strings.Contains(got, `"slug": "mine"`) {
		t.Errorf("slug not from the local layer: %s", got)
	}
	rep := p.Chain.Report()
	for _, w := range []string{"is a URL; never fetched", "missing.agent.json is missing", "outside the workspace"} {
		if !contains(rep.Warnings, w) {
			t.Errorf("no warning %q in %v", w, rep.Warnings)
		}
	}
	opts.AllowOutsideInherits = true
	got, _ = profileJSON(t, opts, "s", "agent")
	if !strings.Contains(got, `"far"`) {
		t.Errorf("--allow-outside-inherits did not follow the outside target: %s", got)
	}
}

func TestInheritanceDepthLimit(t *testing.T) {
	root := tempRoot(t)
	files := map[string]string{".git": "<dir>"}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("d/l%d.agent.json", i)] = fmt.Sprintf(`{"schemaVersion":"0.4.0","guardrails":["g%d"],"inherits":["./l%d.agent.json"]}`, i, i+1)
	}
	files[".clia/agents/s/s.agent.json"] = `{"schemaVersion":"0.4.0","inherits":["d/l0.agent.json"]}`
	tree(t, root, files)
	got, p := profileJSON(t, Options{Path: root}, "s", "agent")
	if !strings.Contains(got, `"g15"`) || strings.Contains(got, `"g16"`) {
		t.Errorf("depth limit: want g0..g15 only, got %s", got)
	}
	if !contains(p.Chain.Report().Warnings, "deeper than 16 levels") {
		t.Errorf("no depth warning: %v", p.Chain.Report().Warnings)
	}
}

func TestResolveInherit(t *testing.T) {
	root := tempRoot(t)
	tree(t, root, map[string]string{"r/.git": "<dir>", "r/a/b/x.json": "{}"})
	from := filepath.Join(root, "r/a/b/x.json")
	tests := []struct{ target, want string }{
		{"./y.json", filepath.Join(root, "r/a/b/y.json")},
		{"../y.json", filepath.Join(root, "r/a/y.json")},
		{"c/y.json", filepath.Join(root, "r/c/y.json")},
		// Rooted: as is (on Windows, on the referencing file's drive).
		{"/abs/y.json", filepath.VolumeName(root) + filepath.FromSlash("/abs/y.json")},
	}
	for _, tt := range tests {
		if got, ok := ResolveInherit(from, tt.target); !ok || got != tt.want {
			t.Errorf("ResolveInherit(%q) = %q %v, want %q", tt.target, got, ok, tt.want)
		}
	}
	if _, ok := ResolveInherit(from, "git+ssh://host/x"); ok {
		t.Error("a URL resolved to a path")
	}
	if got, _ := ResolveInherit(filepath.FromSlash("/norepo/dir/x.json"), "c/y.json"); got != filepath.FromSlash("/norepo/dir/c/y.json") {
		t.Errorf("without a repo: %q", got)
	}
}

func TestInvalidLayerIsSkippedWithPosition(t *testing.T) {
	root := tempRoot(t)
	tree(t, root, map[string]string{
		".git":                                    "<dir>",
		".clia/agents/s/s@ws.agent.triad.json":    `{"schemaVersion":"0.4.0","guardrails":["ws"]}`,
		"a/.clia/agents/s/s@a.agent.triad.json":   "{\n  \"guardrails\": [\"a\",]\n}",
		"a/b/.clia/agents/s/s@b.agent.triad.json": `{"schemaVersion":"0.4.0","guardrails":["b"]}`,
	})
	got, p := profileJSON(t, Options{Path: filepath.Join(root, "a/b")}, "s", "agent")
	if !strings.Contains(got, `"ws"`) || !strings.Contains(got, `"b"`) || strings.Contains(got, `"a"`) {
		t.Errorf("profile = %s", got)
	}
	errs := p.Chain.Report().Errors
	want := filepath.Join(root, "a/.clia/agents/s/s@a.agent.triad.json") + ": line 2, column"
	if !contains(errs, want) {
		t.Errorf("errors %v do not name %s", errs, want)
	}
	d, err := Doctor(Options{Path: filepath.Join(root, "a/b")}, "s")
	if err != nil || d.Status != "error" || !contains(d.Errors, want) {
		t.Errorf("doctor = %+v, %v", d, err)
	}
}
