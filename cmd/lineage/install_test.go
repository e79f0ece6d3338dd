package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `go install github.com/agentlineage/lineage/cmd/lineage@VERSION`, as a
// user runs it, from a module proxy: this checkout is packed as the module
// zip a proxy serves (the files git tracks, without examples/, a module of
// its own), under a version of its own, into a file-system GOPROXY; the go
// command then downloads it, checks go.mod, builds cmd/lineage with the
// dependencies go.sum names, and the installed binary reports that version
// and runs. Nothing reaches the network (GOPROXY lists only files; the
// dependencies come from the module cache's own download directory, and
// GOSUMDB=off: the checksum database has never heard of this version).
//
// It builds lineage from its sources again (a minute or more), so it runs
// when LINEAGE_TEST_GOINSTALL=1 (.ci/run sets it).
func TestGoInstallFromModuleProxy(t *testing.T) {
	if os.Getenv("LINEAGE_TEST_GOINSTALL") != "1" {
		t.Skip("builds lineage again from a module proxy; set LINEAGE_TEST_GOINSTALL=1 (.ci/run does)")
	}
	goBin := goTool()
	modcache := goEnv(t, goBin, "GOMODCACHE")
	// A version no other run uses: the module cache keeps what it once
	// extracted, and runs may overlap.
	version := fmt.Sprintf("v0.0.0-installtest.%d", time.Now().UnixNano())
	t.Cleanup(func() { removeVersion(modcache, version) })

	proxy := t.TempDir()
	writeProxy(t, proxy, "../..", version)
	work := t.TempDir()
	gobin := filepath.Join(work, "bin")
	cmd := exec.Command(goBin, "install", modulePath+"/cmd/lineage@"+version)
	cmd.Dir = work
	cmd.Env = append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(modcache, "cache", "download")),
		"GOSUMDB=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local",
		"GOPATH="+filepath.Join(work, "gopath"), "GOMODCACHE="+modcache, "GOBIN="+gobin, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/lineage@%s: %v\n%s", modulePath, version, err, out)
	}
	bin := filepath.Join(gobin, "lineage")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "lineage "+version+" (go") {
		t.Fatalf("lineage --version = %q, %v; want the installed version %s", out, err, version)
	}
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "AGENTS.md"), []byte("Be brief.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	explain := exec.Command(bin, "instructions", "explain", "--root", repo)
	explain.Dir = repo
	if out, err := explain.CombinedOutput(); err != nil || !strings.Contains(string(out), filepath.Join(repo, "AGENTS.md")) {
		t.Fatalf("the installed lineage: instructions explain: %v\n%s", err, out)
	}
}

func goEnv(t *testing.T, goBin, key string) string {
	t.Helper()
	out, err := exec.Command(goBin, "env", key).Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go env %s: %q, %v", key, out, err)
	}
	return strings.TrimSpace(string(out))
}

// writeProxy lays out one version of the module at dir as a GOPROXY
// serves it: list, .info, .mod and .zip under <module>/@v/.
func writeProxy(t *testing.T, proxy, dir, version string) {
	t.Helper()
	v := filepath.Join(proxy, filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(v, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	zipped, err := moduleZip(dir, version)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": fmt.Appendf(nil, `{"Version":%q,"Time":"2026-01-01T00:00:00Z"}`, version),
		version + ".mod":  gomod,
		version + ".zip":  zipped,
	} {
		if err := os.WriteFile(filepath.Join(v, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// moduleZip packs the module at dir as the go command expects a module zip:
// every file under "<module>@<version>/", without version-control
// directories and without any directory holding a go.mod of its own (a
// nested module such as examples/). With git, only the files git tracks or
// would track (a clone's files); without, every regular file.
func moduleZip(dir, version string) ([]byte, error) {
	files, err := moduleFiles(dir)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		w, err := zw.Create(modulePath + "@" + version + "/" + f)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func moduleFiles(dir string) ([]string, error) {
	var all []string
	if out, err := exec.Command("git", "-C", dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output(); err == nil {
		all = strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	} else {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() {
				rel, _ := filepath.Rel(dir, p)
				all = append(all, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var files []string
	for _, f := range all {
		if st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f))); err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink a module zip cannot hold
		}
		if inNestedModule(dir, f) {
			continue
		}
		files = append(files, f)
	}
	return files, nil
}

// inNestedModule reports whether file f lies below a directory (other than
// dir itself) that has a go.mod.
func inNestedModule(dir, f string) bool {
	for d := filepath.Dir(f); d != "." && d != "/"; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(dir, d, "go.mod")); err == nil {
			return true
		}
	}
	return false
}

// removeVersion takes the test's version out of the module cache again
// (extracted files are read-only there).
func removeVersion(modcache, version string) {
	extracted := filepath.Join(modcache, filepath.FromSlash(modulePath)+"@"+version)
	filepath.WalkDir(extracted, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	os.RemoveAll(extracted)
	dl, _ := filepath.Glob(filepath.Join(modcache, "cache", "download", filepath.FromSlash(modulePath), "@v", version+".*"))
	for _, p := range dl {
		os.Remove(p)
	}
	// The version list the download kept: dropped when it names only
	// these tests' versions.
	list := filepath.Join(modcache, "cache", "download", filepath.FromSlash(modulePath), "@v", "list")
	if b, err := os.ReadFile(list); err == nil {
		mine := true
		for _, v := range strings.Fields(string(b)) {
			mine = mine && strings.HasPrefix(v, "v0.0.0-installtest.")
		}
		if mine {
			os.Remove(list)
		}
	}
}
