//go:build ignore

// The release recipe: `.ci/release --snapshot` (or `go run .ci/release.go
// --snapshot`) builds lineage for every platform it ships for into dist/:
// archives, SBOMs, checksums.txt. It publishes nothing. Without --snapshot
// the version is the tag on HEAD (vX.Y.Z), and a work tree with changes is
// refused.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/agentlineage/lineage/internal/release"
)

func main() {
	snapshot := flag.Bool("snapshot", false, "build a snapshot: version v0.0.0-snapshot+REV, a dirty work tree allowed")
	out := flag.String("out", "dist", "directory to write the release into (must be empty or missing)")
	flag.Parse()
	if err := run(*snapshot, *out); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(snapshot bool, out string) error {
	rev := git("rev-parse", "--short=12", "HEAD")
	stamp := git("log", "-1", "--format=%ct")
	dirty := git("status", "--porcelain") != ""
	version := git("tag", "--points-at", "HEAD", "--list", "v*")
	switch {
	case snapshot:
		version = "v0.0.0-snapshot+" + orDefault(rev, "unknown")
		if dirty {
			version += ".dirty"
		}
	case version == "" || strings.Contains(version, "\n"):
		return fmt.Errorf("HEAD has no single v* tag (%q): tag it, or give --snapshot", version)
	case dirty:
		return fmt.Errorf("the work tree has changes: commit them, or give --snapshot")
	}
	at := time.Unix(0, 0).UTC()
	if s, err := strconv.ParseInt(stamp, 10, 64); err == nil {
		at = time.Unix(s, 0).UTC()
	}
	arts, err := release.Build(context.Background(), release.Options{
		Dir: ".", Package: "./cmd/lineage", Name: "lineage", Version: version,
		VersionVar: "github.com/agentlineage/lineage/internal/cli.Version",
		Out:        out, Time: at, Extra: []string{"README.md"},
	})
	if err != nil {
		return err
	}
	for _, a := range arts {
		fmt.Printf("%s  %s/%s\n", a.SHA256, out, a.Name)
	}
	return nil
}

// git runs git and returns its output trimmed, "" when it fails (no
// checkout: a snapshot is still possible).
func git(args ...string) string {
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
