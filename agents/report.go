package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Report collects findings while resolving: errors (invalid JSON, rootChain
// violations), warnings (schema versions, several candidates, unusable
// inherits) and info. Messages are de-duplicated and sorted on output.
type Report struct {
	Errors   []string `json:"errors"`
	Warnings []string `json:"warnings"`
	Info     []string `json:"info"`
}

func (r *Report) errorf(format string, args ...any) {
	r.Errors = appendOnce(r.Errors, fmt.Sprintf(format, args...))
}

func (r *Report) warnf(format string, args ...any) {
	r.Warnings = appendOnce(r.Warnings, fmt.Sprintf(format, args...))
}

func (r *Report) infof(format string, args ...any) {
	r.Info = appendOnce(r.Info, fmt.Sprintf(format, args...))
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// Sorted returns a copy with each list sorted and never nil. Findings
// start with the path they are about, and sort as if its separators were
// "/": a report lists them in the same order on every OS (a raw sort puts
// "dir: …" after "dir/file: …" on Linux and before "dir\file: …" on
// Windows).
func (r Report) Sorted() Report {
	s := func(l []string) []string {
		out := append([]string{}, l...)
		slices.SortFunc(out, func(a, b string) int {
			if c := strings.Compare(filepath.ToSlash(a), filepath.ToSlash(b)); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		return out
	}
	return Report{Errors: s(r.Errors), Warnings: s(r.Warnings), Info: s(r.Info)}
}

// Status is "error" with errors, "degraded" with warnings, else "ok".
func (r Report) Status() string {
	switch {
	case len(r.Errors) > 0:
		return "error"
	case len(r.Warnings) > 0:
		return "degraded"
	}
	return "ok"
}

// docCache decodes each file once per resolution.
type docCache struct {
	docs map[string]*triad.Value
	errs map[string]error
	// open opens a document (nil: fsx.OpenRegular).
	open func(path string) (*os.File, fs.FileInfo, error)
	// trail notes each document read (nil: none).
	trail *fsx.Trail
	// raw keeps each document's bytes, when not nil, for findings that
	// name a line (doctor and lint only: a read keeps no bytes).
	raw map[string][]byte
}

// line returns the line of file where the value at ptr (a JSON Pointer) is
// written, its last occurrence if a name repeats (the one a read keeps);
// 0 when unknown.
func (c *docCache) line(file, ptr string) int {
	if lines := triad.Lines(c.raw[file], ptr); len(lines) > 0 {
		return lines[len(lines)-1]
	}
	return 0
}

// at is file, with ":line" when the line of ptr in it is known.
func (c *docCache) at(file, ptr string) string {
	if n := c.line(file, ptr); n > 0 {
		return file + ":" + strconv.Itoa(n)
	}
	return file
}

func (c *docCache) load(path string, rep *Report) (*triad.Value, error) {
	if c.docs == nil {
		c.docs, c.errs = map[string]*triad.Value{}, map[string]error{}
	}
	if d, ok := c.docs[path]; ok {
		return d, c.errs[path]
	}
	c.trail.Note(path)
	d, data, err := readDoc(c.open, path)
	c.docs[path], c.errs[path] = d, err
	if c.raw != nil && err == nil {
		c.raw[path] = data
	}
	if err != nil {
		var se *triad.SyntaxError
		if errors.As(err, &se) {
			rep.errorf("%v (document skipped)", err)
		} else {
			rep.errorf("read %s: %v", path, err)
		}
		return nil, err
	}
	if w := triad.SchemaWarning(path, d); w != "" {
		rep.warnf("%s", w)
	}
	documentFindings(path, d, rep)
	return d, nil
}

// MaxDocumentBytes is the largest triad document read; a larger one is
// reported and skipped. Real CLIA documents are a few KiB to a few hundred.
const MaxDocumentBytes = 64 << 20

// readDoc reads a triad document, opened with open (nil: fsx.OpenRegular);
// a FIFO or device swapped in for it is refused without blocking.
func readDoc(open func(string) (*os.File, fs.FileInfo, error), path string) (*triad.Value, []byte, error) {
	if open == nil {
		open = fsx.OpenRegular
	}
	f, fi, err := open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := fsx.ReadOpened(path, f, fi, MaxDocumentBytes)
	if err != nil {
		return nil, nil, err
	}
	v, err := triad.Decode(path, data)
	return v, data, err
}
