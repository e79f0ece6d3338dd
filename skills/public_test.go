package skills

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Skills copied from public repositories (testdata/public/README.md) list,
// lint and load as their repositories describe them: each is found by its
// folder name, passes every rule of the standard, and its body and bundled
// files load.
func TestPublicSkills(t *testing.T) {
	pub, err := filepath.Abs(filepath.Join("testdata", "public"))
	if err != nil {
		t.Fatal(err)
	}
	c := discover(t, Options{Cwd: t.TempDir(), Extra: []string{
		filepath.Join(pub, "anthropics-skills", "skills"),
		filepath.Join(pub, "openai-skills", "skills"),
	}})
	if diff := cmp.Diff([]string{"brand-guidelines", "create-plan", "gh-fix-ci", "internal-comms"}, names(c.Skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if len(c.Problems) != 0 {
		t.Errorf("lint findings: %v", c.Problems)
	}
	ic, _ := c.Find("internal-comms")
	if !strings.HasPrefix(ic.Description, "A set of resources to help me write all kinds of internal communications") || ic.Scope != ScopeExtra {
		t.Errorf("internal-comms = %+v", ic)
	}
	l, err := c.Load("internal-comms")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(l.Content, "## When to use this skill") {
		t.Errorf("body starts %q", l.Content[:40])
	}
	wantFiles := []string{"LICENSE.txt", "examples/3p-updates.md", "examples/company-newsletter.md", "examples/faq-answers.md", "examples/general-comms.md"}
	if diff := cmp.Diff(wantFiles, l.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	// The body tells the model to load a guideline file from examples/.
	r, err := c.Resource("internal-comms", "examples/faq-answers.md")
	if err != nil || !strings.Contains(r.Content, "FAQ") {
		t.Errorf("examples/faq-answers.md: %v", err)
	}
	// Codex's layout: skills under dot-named category folders, a script
	// beside the body.
	g, err := c.Load("gh-fix-ci")
	if err != nil || !strings.Contains(g.Content, "inspect_pr_checks.py") || !cmp.Equal(g.Files, []string{"LICENSE.txt", "scripts/inspect_pr_checks.py"}) {
		t.Errorf("gh-fix-ci: %v %v", g.Files, err)
	}
	if m := c.Search("plan", 1); len(m) != 1 || m[0].Skill.Name != "create-plan" {
		t.Errorf("search plan = %+v", m)
	}
}
