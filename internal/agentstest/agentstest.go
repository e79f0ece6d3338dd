package agentstest

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// CorpusDir returns the CLIA corpus folder: $LINEAGE_CORPUS, else the first
// "shared/corpus/clia" found walking up from the working directory. The test
// is skipped, with a message, when there is none.
func CorpusDir(t testing.TB) string {
	t.Helper()
	if d, ok := FindCorpus(); ok {
		return d
	}
	t.Skip("CLIA corpus not found: set LINEAGE_CORPUS or place shared/corpus/clia above the module")
	return ""
}

// FindCorpus is [CorpusDir] without a test.
func FindCorpus() (string, bool) {
	if d := os.Getenv("LINEAGE_CORPUS"); d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d, true
		}
		return "", false
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		c := filepath.Join(dir, "shared", "corpus", "clia")
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			return c, true
		}
		if filepath.Dir(dir) == dir {
			return "", false
		}
	}
}

// Folders returns the corpus's repository folders (one per snapshot).
func Folders(t testing.TB) []string {
	t.Helper()
	root := CorpusDir(t)
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// Copy copies corpus folder name into a fresh temporary directory and
// returns its path.
func Copy(t testing.TB, name string) string {
	t.Helper()
	src := filepath.Join(CorpusDir(t), name)
	dst := filepath.Join(t.TempDir(), "ws")
	if err := CopyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// CopyTree copies a directory tree of regular files.
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// NestedWorkspace is the name of the reconstructed nested workspace.
const NestedWorkspace = "wrkstrm-finance__mono@036432c+submodules"

// Nested copies the nested workspace and creates the .git markers its
// _layout.json describes: a directory at the superproject root, a file at
// each submodule root. It returns the workspace root and the submodule
// paths (relative).
func Nested(t testing.TB) (root string, submodules []string) {
	t.Helper()
	root = Copy(t, NestedWorkspace)
	b, err := os.ReadFile(filepath.Join(root, "_layout.json"))
	if err != nil {
		t.Fatal(err)
	}
	var layout struct {
		Submodules []struct {
			Path string `json:"path"`
		} `json:"submodules"`
	}
	if err := json.Unmarshal(b, &layout); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range layout.Submodules {
		marker := filepath.Join(root, s.Path, ".git")
		if err := os.WriteFile(marker, []byte("gitdir: ../.git/modules/"+s.Path+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		submodules = append(submodules, s.Path)
	}
	return root, submodules
}
