package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
)

// updateFixtures makes the harness tests keep the transcripts the real
// programs wrote in sessions/testdata/captured-<harness>.tar.gz (see
// docs/sessions.md, Fixtures): the one command that regenerates them with
// whatever versions LINEAGE_HARNESSES holds.
var updateFixtures = flag.Bool("update-fixtures", false, "write the harnesses' transcripts to sessions/testdata/captured-*.tar.gz")

// fixtureSet collects one harness test's transcripts, one folder a run.
type fixtureSet struct {
	// files maps a path in the archive to its scrubbed bytes.
	files map[string][]byte
}

// add copies the regular files under root (a harness's session folder in
// the test's HOME, e.g. .claude/projects) into the set under
// name/rel(home, root), machine paths scrubbed: the test's temporary
// folders become <tmp> in the text ("-tmp" in a folder name made of one)
// and the lineage binary <binary>.
func (s *fixtureSet) add(t *testing.T, name, home, root, lineage string) {
	t.Helper()
	if !*updateFixtures {
		return
	}
	if s.files == nil {
		s.files = map[string][]byte{}
	}
	// Every temporary folder of the test (its HOME's and its repositories')
	// is os.TempDir()/Test<name><number>; Claude Code names folders after
	// a path with its separators and dots as dashes.
	testTmp := regexp.MustCompile(regexp.QuoteMeta(os.TempDir()) + `/Test[^/"\\\s]*`)
	escaped := strings.NewReplacer("/", "-", ".", "-", "_", "-").Replace(filepath.Dir(home))
	text := strings.NewReplacer(lineage, "<binary>", escaped, "-tmp")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(home, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		arc := name + "/" + strings.ReplaceAll(filepath.ToSlash(rel), escaped, "-tmp")
		s.files[arc] = []byte(testTmp.ReplaceAllLiteralString(text.Replace(string(data)), "<tmp>"))
		return nil
	})
	if err != nil {
		t.Fatalf("keep the transcripts under %s: %v", root, err)
	}
}

// write replaces sessions/testdata/captured-<harness>.tar.gz with the set:
// entries sorted, one fixed time, so the same transcripts make the same
// bytes.
func (s *fixtureSet) write(t *testing.T, harness string) {
	t.Helper()
	if !*updateFixtures || t.Failed() {
		return
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dirs := map[string]bool{}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range s.files {
			if !yield(k) {
				return
			}
		}
	}) {
		for i := range name {
			if d := name[:i+1]; name[i] == '/' && !dirs[d] {
				dirs[d] = true
				tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: at})
			}
		}
		data := s.files[name]
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: at}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join("..", "..", "sessions", "testdata", "captured-"+harness+".tar.gz")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d files, %d bytes", out, len(s.files), buf.Len())
}

// packageVersion reads the version of the npm package in dir.
func packageVersion(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &p, json.RejectUnknownMembers(false)); err != nil || p.Version == "" {
		t.Fatalf("%s: no version (%v)", filepath.Join(dir, "package.json"), err)
	}
	return p.Version
}
