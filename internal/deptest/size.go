package deptest

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The size limits of STYLE: a file longer than MaxFileLines, or a function
// longer than MaxFuncLines, is asking to be split along a seam.
const (
	MaxFileLines = 600
	MaxFuncLines = 80
)

// Oversize is one file or function over its limit. Key names it in the
// allow-list: the file's slash path relative to the module root, and for a
// function that path, a colon and the function's name (a method's name is
// Recv.Method, without the pointer star).
type Oversize struct {
	Key   string
	Lines int
}

func (o Oversize) String() string {
	limit := MaxFileLines
	if strings.Contains(o.Key, ":") {
		limit = MaxFuncLines
	}
	return fmt.Sprintf("%s: %d lines (limit %d)", o.Key, o.Lines, limit)
}

// Sizes returns the files and functions of the module at root that are
// over the limits, sorted by key. It reads every non-test Go file outside
// testdata, hidden directories and nested modules, and skips files marked
// generated.
func Sizes(root string) ([]Oversize, error) {
	var out []Oversize
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDir(p, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		found, err := fileSizes(fset, p, filepath.ToSlash(rel))
		out = append(out, found...)
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Oversize) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// skipDir reports whether the walk leaves directory p out: testdata,
// hidden and underscore directories, and nested modules.
func skipDir(p, name string) bool {
	if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	_, err := os.Stat(filepath.Join(p, "go.mod"))
	return err == nil
}

// fileSizes parses one file and returns it and its functions where they
// are over the limits.
func fileSizes(fset *token.FileSet, path, rel string) ([]Oversize, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	if ast.IsGenerated(f) {
		return nil, nil
	}
	var out []Oversize
	if n := bytes.Count(src, []byte("\n")); n > MaxFileLines {
		out = append(out, Oversize{Key: rel, Lines: n})
	}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
		if n > MaxFuncLines {
			out = append(out, Oversize{Key: rel + ":" + funcName(fn), Lines: n})
		}
	}
	return out, nil
}

// funcName is fn's name, Recv.Method for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// AllowEntry is one line of the size allow-list: a key as in [Oversize]
// and why it must stay over the limit.
type AllowEntry struct {
	Key    string
	Reason string
	Line   int
}

// ParseAllowList reads an allow-list: one entry a line, the key, white
// space and the reason; blank lines and lines starting with # are
// comments. An entry without a reason, or a key listed twice, is an error
// naming the line.
func ParseAllowList(name string, data []byte) ([]AllowEntry, error) {
	var out []AllowEntry
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key := strings.Fields(line)[0]
		reason := strings.TrimSpace(line[len(key):])
		if reason == "" {
			return nil, fmt.Errorf("%s:%d: %s: no reason given", name, n, key)
		}
		if first, dup := seen[key]; dup {
			return nil, fmt.Errorf("%s:%d: %s already listed on line %d", name, n, key, first)
		}
		seen[key] = n
		out = append(out, AllowEntry{Key: key, Reason: reason, Line: n})
	}
	return out, sc.Err()
}

// CheckSizes compares what is over the limits with the allow-list: it
// returns the oversize files and functions nobody allowed, and the entries
// that no longer match anything over a limit (split, renamed or moved:
// remove them).
func CheckSizes(found []Oversize, allow []AllowEntry) (unlisted []Oversize, stale []AllowEntry) {
	allowed := map[string]bool{}
	for _, a := range allow {
		allowed[a.Key] = true
	}
	over := map[string]bool{}
	for _, o := range found {
		over[o.Key] = true
		if !allowed[o.Key] {
			unlisted = append(unlisted, o)
		}
	}
	for _, a := range allow {
		if !over[a.Key] {
			stale = append(stale, a)
		}
	}
	return unlisted, stale
}
