package release

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Target is one platform: GOOS and GOARCH.
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "/" + t.Arch }

// Targets are the platforms a release ships for (README.md, Platforms).
var Targets = []Target{
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"linux", "amd64"}, {"linux", "arm64"},
	{"windows", "amd64"},
}

// Options says what to build and where.
type Options struct {
	// Dir is the module's root; Package the main package in it
	// ("./cmd/lineage"); Name the binary's and the archives' name.
	Dir, Package, Name string
	// Version is the release's version (v1.2.3, or a snapshot's).
	Version string
	// VersionVar, when set, is the package variable -X sets to Version
	// (for a binary that reports it: a local build's module version is
	// "(devel)").
	VersionVar string
	// Out is the directory the files are written to; it must be empty or
	// not exist.
	Out string
	// Time is every archive entry's modification time.
	Time time.Time
	// Targets defaults to [Targets].
	Targets []Target
	// Extra are files of Dir packed beside the binary (README.md).
	Extra []string
	// Go is the go command; "" finds it on PATH.
	Go string
}

// Artifact is one file of the release.
type Artifact struct {
	Name   string
	SHA256 string
}

// ChecksumsFile is the name of the checksums file in Out.
const ChecksumsFile = "checksums.txt"

// Build writes the release into o.Out: per target an archive and its
// SBOM, then checksums.txt over all of them. It returns the artifacts,
// checksums.txt last.
func Build(ctx context.Context, o Options) ([]Artifact, error) {
	if o.Name == "" || o.Package == "" || o.Version == "" || o.Out == "" {
		return nil, errors.New("release: Name, Package, Version and Out are required")
	}
	if len(o.Targets) == 0 {
		o.Targets = Targets
	}
	if o.Go == "" {
		o.Go = "go"
	}
	if entries, err := os.ReadDir(o.Out); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("release: %s is not empty", o.Out)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "lineage-release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	var arts []Artifact
	for _, t := range o.Targets {
		got, err := buildTarget(ctx, o, t, work)
		if err != nil {
			return nil, fmt.Errorf("release %s: %w", t, err)
		}
		arts = append(arts, got...)
	}
	slices.SortFunc(arts, func(a, b Artifact) int { return strings.Compare(a.Name, b.Name) })
	var sums bytes.Buffer
	for _, a := range arts {
		fmt.Fprintf(&sums, "%s  %s\n", a.SHA256, a.Name)
	}
	sum, err := writeFile(filepath.Join(o.Out, ChecksumsFile), sums.Bytes())
	if err != nil {
		return nil, err
	}
	return append(arts, Artifact{Name: ChecksumsFile, SHA256: sum}), nil
}

// buildTarget builds one target's binary, archive and SBOM.
func buildTarget(ctx context.Context, o Options, t Target, work string) ([]Artifact, error) {
	bin := o.Name
	if t.OS == "windows" {
		bin += ".exe"
	}
	binPath := filepath.Join(work, t.OS+"_"+t.Arch, bin)
	ldflags := "-s -w"
	if o.VersionVar != "" {
		ldflags += " -X " + o.VersionVar + "=" + o.Version
	}
	cmd := exec.CommandContext(ctx, o.Go, "build", "-trimpath", "-ldflags="+ldflags, "-o", binPath, o.Package)
	cmd.Dir = o.Dir
	cmd.Env = append(os.Environ(), "GOOS="+t.OS, "GOARCH="+t.Arch, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build: %v\n%s", err, out)
	}
	info, err := buildinfo.ReadFile(binPath)
	if err != nil {
		return nil, err
	}
	base := fmt.Sprintf("%s_%s_%s_%s", o.Name, strings.TrimPrefix(o.Version, "v"), t.OS, t.Arch)
	files := []archiveFile{{Name: bin, Path: binPath, Mode: 0o755}}
	for _, e := range o.Extra {
		files = append(files, archiveFile{Name: filepath.Base(e), Path: filepath.Join(o.Dir, e), Mode: 0o644})
	}
	archive := base + ".tar.gz"
	data, err := tarGz(files, o.Time)
	if t.OS == "windows" {
		archive = base + ".zip"
		data, err = zipArchive(files, o.Time)
	}
	if err != nil {
		return nil, err
	}
	asum, err := writeFile(filepath.Join(o.Out, archive), data)
	if err != nil {
		return nil, err
	}
	sbomName := archive + ".sbom.spdx.json"
	doc, err := spdx(sbomName, archive, asum, o.Version, info, o.Time)
	if err != nil {
		return nil, err
	}
	ssum, err := writeFile(filepath.Join(o.Out, sbomName), doc)
	if err != nil {
		return nil, err
	}
	return []Artifact{{archive, asum}, {sbomName, ssum}}, nil
}

// writeFile writes data to path and returns its SHA-256, hex.
func writeFile(path string, data []byte) (string, error) {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}
