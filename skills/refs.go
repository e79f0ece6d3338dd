package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// checkRefs reports the body's references to files of the skill folder
// (dir, under b) that do not exist or are not inside it.
func checkRefs(b *base, dir, file string, doc *doc) []Problem {
	refs := references(doc.rawBody, doc.bodyLine)
	if len(refs) == 0 {
		return nil
	}
	r, err := b.root.OpenRoot(dir)
	if err != nil {
		return nil
	}
	defer r.Close()
	var out []Problem
	for _, ref := range refs {
		if b.trail != nil {
			b.trail.Note(filepath.Join(b.abs(dir), filepath.FromSlash(ref.target)))
		}
		_, err := r.Stat(ref.target)
		switch {
		case err == nil:
			continue
		case errors.Is(err, fs.ErrNotExist):
			out = append(out, Problem{Path: file, Line: ref.line, Message: fmt.Sprintf("references %s, which does not exist in the skill folder", ref.target)})
		case strings.Contains(err.Error(), "path escapes from parent"):
			out = append(out, Problem{Path: file, Line: ref.line, Message: fmt.Sprintf("references %s, which is outside the skill folder", ref.target)})
		}
	}
	return out
}

// linkRef finds Markdown link targets: [text](target) and ![alt](target);
// codeRef finds inline code spans that name a file under the standard's
// resource folders: `scripts/x.py`, `references/REFERENCE.md`. Both are
// compiled on first use (nothing runs at init).
var (
	linkRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	})
	codeRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("`((?:scripts|references|assets)/[^`\\s]+)`")
	})
)

// references lists the relative file references of a body with their lines
// in the file (bodyLine is the body's first line): Markdown links and code
// spans naming scripts/, references/ or assets/ files. URLs, anchors and
// absolute paths are not references to the skill's files.
func references(body string, bodyLine int) []ref {
	var out []ref
	inFence := false
	for i, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range linkRef().FindAllStringSubmatch(line, -1) {
			if r, ok := cleanRef(m[1]); ok {
				out = append(out, ref{target: r, line: bodyLine + i})
			}
		}
		for _, m := range codeRef().FindAllStringSubmatch(line, -1) {
			if r, ok := cleanRef(m[1]); ok {
				out = append(out, ref{target: r, line: bodyLine + i})
			}
		}
	}
	return out
}

type ref struct {
	target string
	line   int
}

func cleanRef(t string) (string, bool) {
	if i := strings.IndexAny(t, "#?"); i >= 0 {
		t = t[:i]
	}
	switch {
	case t == "", strings.Contains(t, "://"), strings.HasPrefix(t, "mailto:"), strings.HasPrefix(t, "/"),
		strings.Contains(t, "{"), strings.Contains(t, "*"), strings.Contains(t, "<"):
		return "", false
	}
	if i := strings.IndexByte(t, ':'); i > 0 && !strings.ContainsAny(t[:i], "/.") {
		return "", false // a scheme such as data: or tel:
	}
	t = strings.ReplaceAll(t, "%20", " ")
	return path.Clean(strings.TrimPrefix(t, "./")), true
}
