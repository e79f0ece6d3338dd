package instructions

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestResumeNothingChangedIsEmpty(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "r", "a/AGENTS.md": "a"})
	s, _ := Start(opts(filepath.Join(root, "a")))
	r := Resume(s.State(), opts(filepath.Join(root, "a")))
	if r.Text != "" {
		t.Errorf("text = %q, want empty", r.Text)
	}
}

func TestResumeDiffIsExact(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "r", "a/AGENTS.md": "a", "b/AGENTS.md": "b", "elsewhere/AGENTS.md": "e", "gone/AGENTS.md": "g"})
	mt := time.UnixMilli(1738973000000)
	setMtime(t, filepath.Join(root, "b/AGENTS.md"), mt)
	s, _ := Start(opts(filepath.Join(root, "a")))
	s.Resolve(filepath.Join(root, "elsewhere"))
	s.Resolve(filepath.Join(root, "gone"))
	saved := s.State()
	os.Remove(filepath.Join(root, "gone/AGENTS.md"))
	r := Resume(saved, opts(filepath.Join(root, "b")))
	want := `<system-reminder type="session.resume.diff">
Session resumed with context changes:
- cwd: ` + filepath.Join(root, "a") + ` -> ` + filepath.Join(root, "b") + `
- root: ` + root + ` -> ` + root + `
- markers: [".lineage-test-root"] -> [".lineage-test-root"]
Re-check AGENTS.md for current scope:
- ` + filepath.Join(root, "b/AGENTS.md") + ` (mtime: 1738973000000)
No longer in scope:
- ` + filepath.Join(root, "a/AGENTS.md") + `
- ` + filepath.Join(root, "gone/AGENTS.md") + `
</system-reminder>`
	if r.Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", r.Text, want)
	}
	// The new state knows the current chain and the resolved file that is
	// still there, and has forgotten the rest.
	var got []string
	for _, f := range r.Session.State().Files {
		got = append(got, f.Path)
	}
	want2 := []string{filepath.Join(root, "AGENTS.md"), filepath.Join(root, "b/AGENTS.md"), filepath.Join(root, "elsewhere/AGENTS.md")}
	if len(got) != 3 || got[0] != want2[0] || got[1] != want2[1] || got[2] != want2[2] {
		t.Errorf("new state files = %v, want %v", got, want2)
	}
	if again := Resume(r.Session.State(), opts(filepath.Join(root, "b"))); again.Text != "" {
		t.Errorf("resume after resume = %q, want empty", again.Text)
	}
}

func TestResumeChangedFileAndMarkers(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "r", ".git/": ""})
	s, _ := Start(opts(root))
	saved := s.State()
	write(t, filepath.Join(root, "AGENTS.md"), "longer now")
	setMtime(t, filepath.Join(root, "AGENTS.md"), time.UnixMilli(1738973000000))
	r := Resume(saved, opts(root, func(c *Config) { c.Root.Markers = []string{".git", testMarker} }))
	want := `<system-reminder type="session.resume.diff">
Session resumed with context changes:
- cwd: ` + root + ` -> ` + root + `
- root: ` + root + ` -> ` + root + `
- markers: [".lineage-test-root"] -> [".git",".lineage-test-root"]
Re-check AGENTS.md for current scope:
- ` + filepath.Join(root, "AGENTS.md") + ` (mtime: 1738973000000)
</system-reminder>`
	if r.Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", r.Text, want)
	}
}

// A nested file the session had been told about (a resolve reported it)
// that changed while the session was away is named under Re-check, even
// though the cwd and the chain are the same; resuming again is quiet.
func TestResumeNamesAChangedResolvedFile(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "r", "web/AGENTS.md": "w"})
	s, _ := Start(opts(root))
	s.Resolve(filepath.Join(root, "web/x.ts"))
	saved := s.State()
	if err := os.WriteFile(filepath.Join(root, "web/AGENTS.md"), []byte("w, now stricter"), 0o644); err != nil {
		t.Fatal(err)
	}
	mt := time.UnixMilli(1738973000000)
	setMtime(t, filepath.Join(root, "web/AGENTS.md"), mt)
	r := Resume(saved, opts(root))
	want := `<system-reminder type="session.resume.diff">
Session resumed with context changes:
- cwd: ` + root + ` -> ` + root + `
- root: ` + root + ` -> ` + root + `
- markers: [".lineage-test-root"] -> [".lineage-test-root"]
Re-check AGENTS.md for current scope:
- ` + filepath.Join(root, "web/AGENTS.md") + ` (mtime: 1738973000000)
</system-reminder>`
	if r.Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", r.Text, want)
	}
	if again := Resume(r.Session.State(), opts(root)); again.Text != "" {
		t.Errorf("second resume: %q", again.Text)
	}
	if got := r.Session.Resolve(filepath.Join(root, "web/y.ts")).Files; len(got) != 0 {
		t.Errorf("resolve after the resume reported %v again", got)
	}
}
