package instructions

import (
	"fmt"
	"github.com/agentlineage/lineage/internal/platformtest"
	"path/filepath"
	"testing"
)

func TestEstimateRoot(t *testing.T) {
	base := t.TempDir()
	makeTree(t, base, map[string]string{
		"home/user/repo/.git/":             "",
		"home/user/repo/pkg/a/":            "",
		"home/user/wt/.git":                "gitdir: /elsewhere\n", // a worktree's .git file
		"home/user/wt/sub/":                "",
		"home/user/both/.jj/":              "",
		"home/user/both/.codelia/":         "",
		"home/user/plain/deep/":            "",
		"top/.git/":                        "",
		"top/home/me/.git/":                "",
		"top/home/me/project/src/":         "",
		"top/home/other/project/src/":      "",
		"home/user/repo/pkg/a/.hg/":        "",
		"home/user/repo/pkg/nested/.jj/":   "",
		"home/user/repo/pkg/nested/inner/": "",
		"home/user/file-marker/.codelia":   "",
		"home/user/file-marker/x/y/":       "",
	})
	p := func(s string) string { return filepath.Join(base, filepath.FromSlash(s)) }
	std := []string{".codelia", ".git", ".jj"}
	tests := []struct {
		name       string
		cwd        string
		cfg        RootConfig
		home       string
		wantDir    string
		wantSource string
	}{
		{"marker directory above cwd", "home/user/repo/pkg/a", RootConfig{Markers: std, StopAtFsRoot: true}, "", "home/user/repo", "marker:.git"},
		{"marker in cwd itself", "home/user/repo", RootConfig{Markers: std, StopAtFsRoot: true}, "", "home/user/repo", "marker:.git"},
		{".git file counts", "home/user/wt/sub", RootConfig{Markers: std, StopAtFsRoot: true}, "", "home/user/wt", "marker:.git"},
		{"marker file counts", "home/user/file-marker/x/y", RootConfig{Markers: std, StopAtFsRoot: true}, "", "home/user/file-marker", "marker:.codelia"},
		{"first marker of the list that matched", "home/user/both", RootConfig{Markers: std, StopAtFsRoot: true}, "", "home/user/both", "marker:.codelia"},
		{"list order decides, not the directory", "home/user/both", RootConfig{Markers: []string{".jj", ".codelia"}, StopAtFsRoot: true}, "", "home/user/both", "marker:.jj"},
		{"nearest marker wins", "home/user/repo/pkg/nested/inner", RootConfig{Markers: std, StopAtFsRoot: true}, "", "home/user/repo/pkg/nested", "marker:.jj"},
		{"custom markers", "home/user/repo/pkg/a", RootConfig{Markers: []string{".hg"}, StopAtFsRoot: true}, "", "home/user/repo/pkg/a", "marker:.hg"},
		{"override wins over markers", "home/user/repo/pkg/a", RootConfig{Markers: std, ProjectRootOverride: p("home/user/repo/pkg"), StopAtFsRoot: true}, "", "home/user/repo/pkg", "override"},
		{"no marker: cwd", "home/user/plain/deep", RootConfig{Markers: []string{testMarker}, StopAtFsRoot: true}, "", "home/user/plain/deep", "cwd"},
		{"stop at home: marker above home ignored", "top/home/other/project/src", RootConfig{Markers: std}, p("top/home/other"), "top/home/other/project/src", "cwd"},
		{"stop at home: home itself is checked", "top/home/me/project/src", RootConfig{Markers: std}, p("top/home/me"), "top/home/me", "marker:.git"},
		{"stop at fs root: climbs past home", "top/home/other/project/src", RootConfig{Markers: std, StopAtFsRoot: true}, p("top/home/other"), "top", "marker:.git"},
		{"stop at home, cwd outside home: climbs", "top/home/other/project/src", RootConfig{Markers: std}, p("home/user"), "top", "marker:.git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EstimateRoot(nil, tt.cfg, p(tt.cwd), tt.home)
			if got.Dir != p(tt.wantDir) || got.Source != tt.wantSource {
				t.Errorf("got %s (%s), want %s (%s)", got.Dir, got.Source, p(tt.wantDir), tt.wantSource)
			}
		})
	}
}

// A user in /work/link/sub walks /work/link: symlinks in the working
// directory are not resolved.
func TestEstimateRootKeepsLogicalPaths(t *testing.T) {
	base := t.TempDir()
	makeTree(t, base, map[string]string{"real/sub/": "", "work/.git/": ""})
	link := filepath.Join(base, "work", "link")
	platformtest.Symlink(t, filepath.Join(base, "real"), link)
	cwd := filepath.Join(link, "sub")
	got := EstimateRoot(nil, RootConfig{Markers: []string{".git"}, StopAtFsRoot: true}, cwd+"/./", "")
	if want := filepath.Join(base, "work"); got.Dir != want {
		t.Errorf("root = %s, want %s (the logical parent of the link)", got.Dir, want)
	}
	// The chain runs through the link's path too.
	write(t, filepath.Join(link, "AGENTS.md"), "through the link")
	_, in := Start(Options{Config: DefaultConfig(), Cwd: cwd})
	if want := []string{filepath.Join(link, "AGENTS.md")}; len(in.Files) != 1 || in.Files[0].Path != want[0] {
		t.Errorf("files = %v, want %v", paths(in.Files), want)
	}
}

func TestChainDirs(t *testing.T) {
	tests := []struct {
		root, dir string
		want      []string
	}{
		{"/r", "/r", []string{"/r"}},
		{"/r", "/r/a/b", []string{"/r", "/r/a", "/r/a/b"}},
		{"/", "/a/b", []string{"/", "/a", "/a/b"}},
		{"/", "/", []string{"/"}},
		{"/r", "/rx/a", nil},
		{"/r/a", "/r", nil},
		{"/r", "/", nil},
	}
	for _, tt := range tests {
		got := chainDirs(tt.root, tt.dir)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("chainDirs(%q, %q) = %q, want %q", tt.root, tt.dir, got, tt.want)
		}
	}
}
