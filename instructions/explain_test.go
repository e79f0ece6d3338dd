package instructions

import (
	"github.com/agentlineage/lineage/internal/platformtest"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func statuses(e Explanation) []string {
	var out []string
	for _, d := range e.Dirs {
		out = append(out, string(d.Status)+" "+d.Dir)
	}
	return out
}

func TestExplainStatuses(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "root", "a/AGENTS.md": "  \n", "a/b/": "", "a/b/c/AGENTS.md/": "", "a/b/c/d/AGENTS.md": "d", "a/b/c/d/e/AGENTS.md": "e"})
	platformtest.Symlink(t, filepath.Join(root, "a/b/c/d"), filepath.Join(root, "a/b/c/d/e/f"))
	e := Explain(opts(filepath.Join(root, "a")), "b/c/d/e/f/file.go")
	want := []string{
		"loaded " + root,
		"empty " + filepath.Join(root, "a"),
		"missing " + filepath.Join(root, "a/b"),
		"not-regular-file " + filepath.Join(root, "a/b/c"),
		"loaded " + filepath.Join(root, "a/b/c/d"),
		"loaded " + filepath.Join(root, "a/b/c/d/e"),
		"duplicate " + filepath.Join(root, "a/b/c/d/e/f"),
	}
	if diff := cmp.Diff(want, statuses(e)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if e.TargetDir != filepath.Join(root, "a/b/c/d/e/f") || e.RootSource != "marker:"+testMarker {
		t.Errorf("target dir %s, root source %s", e.TargetDir, e.RootSource)
	}
	if len(e.Findings()) != 0 {
		t.Errorf("findings = %v", e.Findings())
	}
}

func TestExplainCapsAndOutsideRoot(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "12345", "a/AGENTS.md": "1", "a/b/AGENTS.md": "1"})
	e := Explain(opts(filepath.Join(root, "a/b"), func(c *Config) { c.Initial.MaxFiles = 1 }), "")
	if diff := cmp.Diff([]string{"loaded " + root, "skipped:max-files " + filepath.Join(root, "a"), "skipped:max-files " + filepath.Join(root, "a/b")}, statuses(e)); diff != "" {
		t.Errorf("max files (-want +got):\n%s", diff)
	}
	if len(e.Findings()) != 2 {
		t.Errorf("findings = %v", e.Findings())
	}
	e = Explain(opts(filepath.Join(root, "a/b"), func(c *Config) { c.Initial.MaxBytes = 5 }), "")
	if diff := cmp.Diff([]string{"loaded " + root, "skipped:max-bytes " + filepath.Join(root, "a"), "skipped:max-bytes " + filepath.Join(root, "a/b")}, statuses(e)); diff != "" {
		t.Errorf("max bytes (-want +got):\n%s", diff)
	}
	outside := t.TempDir()
	e = Explain(opts(root), outside)
	if diff := cmp.Diff([]string{"outside-root " + outside}, statuses(e)); diff != "" {
		t.Errorf("outside target (-want +got):\n%s", diff)
	}
	e = Explain(opts(outside, func(c *Config) { c.Root.ProjectRootOverride = root }), "")
	if diff := cmp.Diff([]string{"outside-root " + outside}, statuses(e)); diff != "" {
		t.Errorf("outside cwd (-want +got):\n%s", diff)
	}
}
