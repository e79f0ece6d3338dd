package main

import (
	"debug/buildinfo"
	"os/exec"
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
	vcs := func(rev, at, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "-trimpath", Value: "true"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: at},
			{Key: "vcs.modified", Value: modified},
		}
	}
	const rev = "ecc9d5358330ead59b75556a241c3d5825b0f53a"
	for _, tc := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"tagged release", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}, Settings: vcs(rev, "2026-11-23T17:39:06Z", "false")},
			"v1.2.0 (ecc9d5358330, 2026-11-23T17:39:06Z, go1.26.8)"},
		{"dirty checkout", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261123173906-ecc9d5358330+dirty"}, Settings: vcs(rev, "2026-11-23T17:39:06Z", "true")},
			"v0.0.0-20261123173906-ecc9d5358330+dirty (ecc9d5358330-dirty, 2026-11-23T17:39:06Z, go1.26.8)"},
		{"no vcs stamp", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"devel (go1.26.8)"},
		{"nothing known", debug.BuildInfo{}, "devel"},
	} {
		if got := version(&tc.info); got != tc.want {
			t.Errorf("%s: version = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The built binary prints what its own build info says.
func TestVersionFlag(t *testing.T) {
	bin := lineageBinary(t)
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "lineage " + version(info) + "\n"; string(out) != want {
		t.Errorf("lineage --version = %q, want %q", out, want)
	}
}
