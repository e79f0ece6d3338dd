package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
)

// A release of a small module for every target: one archive each (zip for
// Windows) holding the binary for that platform and the README, an SPDX
// SBOM naming the archive's checksum, the module and its Go release, and a
// checksums.txt that matches every file; a second build gives the same
// bytes.
func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-builds a program five times")
	}
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	// LookPath, not Stat: the file must be a program this OS runs (under
	// Wine, GOROOT is the Linux toolchain's, which Windows cannot start).
	if _, err := exec.LookPath(goCmd); err != nil {
		t.Skipf("no go command: %v", err)
	}
	mod := t.TempDir()
	writeFiles(t, mod, map[string]string{
		"go.mod":            "module example.com/hello\n\ngo 1.26\n",
		"cmd/hello/main.go": "package main\n\nvar Version = \"devel\"\n\nfunc main() { println(Version) }\n",
		"README.md":         "# hello\n",
	})
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	opts := Options{Dir: mod, Package: "./cmd/hello", Name: "hello", Version: "v1.2.3",
		VersionVar: "main.Version", Out: filepath.Join(t.TempDir(), "dist"), Time: at, Extra: []string{"README.md"}, Go: goCmd}
	arts, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range arts {
		names = append(names, a.Name)
	}
	want := []string{
		"hello_1.2.3_darwin_amd64.tar.gz", "hello_1.2.3_darwin_amd64.tar.gz.sbom.spdx.json",
		"hello_1.2.3_darwin_arm64.tar.gz", "hello_1.2.3_darwin_arm64.tar.gz.sbom.spdx.json",
		"hello_1.2.3_linux_amd64.tar.gz", "hello_1.2.3_linux_amd64.tar.gz.sbom.spdx.json",
		"hello_1.2.3_linux_arm64.tar.gz", "hello_1.2.3_linux_arm64.tar.gz.sbom.spdx.json",
		"hello_1.2.3_windows_amd64.zip", "hello_1.2.3_windows_amd64.zip.sbom.spdx.json",
		"checksums.txt",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("artifacts %v, want %v", names, want)
	}
	checkChecksums(t, opts.Out, want[:len(want)-1])
	for _, tg := range Targets {
		base := "hello_1.2.3_" + tg.OS + "_" + tg.Arch
		bin, readme := unpack(t, filepath.Join(opts.Out, base), tg.OS == "windows")
		if readme != "# hello\n" {
			t.Errorf("%s: README %q", base, readme)
		}
		info := binaryInfo(t, bin)
		if info.Main.Path != "example.com/hello" || setting(info, "GOOS") != tg.OS || setting(info, "GOARCH") != tg.Arch ||
			setting(info, "CGO_ENABLED") != "0" || setting(info, "-trimpath") != "true" {
			t.Errorf("%s: build info %v", base, info)
		}
		if !bytes.Contains(bin, []byte("v1.2.3")) {
			t.Errorf("%s: the binary does not carry its version", base)
		}
		checkSBOM(t, opts.Out, base, tg.OS == "windows", info.GoVersion)
	}

	// Reproducible: packing the same files at the same time gives the
	// same bytes (the binaries are Go's: -trimpath builds are).
	files := []archiveFile{{Name: "README.md", Path: filepath.Join(mod, "README.md"), Mode: 0o644}}
	for _, pack := range []func([]archiveFile, time.Time) ([]byte, error){tarGz, zipArchive} {
		a, err1 := pack(files, at)
		b, err2 := pack(files, at)
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("two packings differ (%v, %v)", err1, err2)
		}
	}
	// A directory with files in it is refused, not mixed into.
	if _, err := Build(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("build into a full directory: %v", err)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkChecksums checks checksums.txt as sha256sum -c would: every file
// listed once, with its sum.
func checkChecksums(t *testing.T, dir string, files []string) {
	t.Helper()
	sums, err := os.ReadFile(filepath.Join(dir, ChecksumsFile))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, l := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(l, "  ")
		data, err := os.ReadFile(filepath.Join(dir, name))
		h := sha256.Sum256(data)
		if !ok || err != nil || hex.EncodeToString(h[:]) != sum {
			t.Errorf("checksums.txt: %q does not match (%v)", l, err)
		}
		listed = append(listed, name)
	}
	slices.Sort(files)
	if !slices.Equal(listed, files) {
		t.Errorf("checksums.txt lists %v, want %v", listed, files)
	}
	if exec.Command("sha256sum", "--version").Run() == nil {
		c := exec.Command("sha256sum", "-c", ChecksumsFile)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c: %v\n%s", err, out)
		}
	}
}

// unpack returns the binary and the README of an archive.
func unpack(t *testing.T, base string, isZip bool) (bin []byte, readme string) {
	t.Helper()
	files := map[string][]byte{}
	if isZip {
		zr, err := zip.OpenReader(base + ".zip")
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			rc, _ := f.Open()
			files[f.Name], _ = io.ReadAll(rc)
			rc.Close()
		}
		return files["hello.exe"], string(files["README.md"])
	}
	f, err := os.Open(base + ".tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == "hello" && h.Mode != 0o755 {
			t.Errorf("%s: binary mode %o", base, h.Mode)
		}
		files[h.Name], _ = io.ReadAll(tr)
	}
	return files["hello"], string(files["README.md"])
}

func binaryInfo(t *testing.T, bin []byte) *buildinfoInfo {
	t.Helper()
	info, err := buildinfo.Read(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("build info: %v", err)
	}
	return info
}

type buildinfoInfo = debug.BuildInfo

func setting(info *buildinfoInfo, key string) string {
	for _, s := range info.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// checkSBOM reads an archive's SBOM: SPDX 2.3, the archive's checksum, the
// module at the release's version and the Go release it was built with.
func checkSBOM(t *testing.T, dir, base string, isZip bool, goVersion string) {
	t.Helper()
	archive := base + ".tar.gz"
	if isZip {
		archive = base + ".zip"
	}
	raw, err := os.ReadFile(filepath.Join(dir, archive+".sbom.spdx.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SPDXVersion string `json:"spdxVersion"`
		Files       []struct {
			Checksums []struct{ Algorithm, ChecksumValue string } `json:"checksums"`
		} `json:"files"`
		Packages []struct {
			Name        string `json:"name"`
			VersionInfo string `json:"versionInfo"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", archive, err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, archive))
	h := sha256.Sum256(data)
	if doc.SPDXVersion != "SPDX-2.3" || len(doc.Files) != 1 || len(doc.Files[0].Checksums) != 1 ||
		doc.Files[0].Checksums[0].ChecksumValue != hex.EncodeToString(h[:]) {
		t.Errorf("%s: SBOM header or archive checksum wrong: %s", archive, raw)
	}
	var pkgs []string
	for _, p := range doc.Packages {
		pkgs = append(pkgs, p.Name+"@"+p.VersionInfo)
	}
	if !slices.Contains(pkgs, "example.com/hello@v1.2.3") || !slices.Contains(pkgs, "stdlib@"+goVersion) {
		t.Errorf("%s: SBOM packages %v", archive, pkgs)
	}
}
