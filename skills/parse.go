package skills

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/agentlineage/lineage/internal/frontmatter"
)

// The standard's limits (agentskills.io/specification).
const (
	MaxNameLen          = 64
	MaxDescriptionLen   = 1024
	MaxCompatibilityLen = 500
)

// standardFields are the front matter keys the Agent Skills specification
// defines; harnessFields are keys harnesses document for their own use
// (Claude Code's, and Codelia's recommended version), accepted without a
// finding. Any other key is a finding of [Lint].
var (
	standardFields = []string{"allowed-tools", "compatibility", "description", "license", "metadata", "name"}
	harnessFields  = []string{"agent", "argument-hint", "context", "disable-model-invocation", "hooks", "model", "user-invocable", "version"}
)

// doc is a parsed SKILL.md.
type doc struct {
	name, description string
	body              string // trimmed
	rawBody           string
	bodyLine          int
	fields            []frontmatter.Field
}

// parse reads a SKILL.md for the catalog. It returns nil (and the reasons)
// when the skill cannot be listed: no or broken front matter, no usable
// name or description, as the standard's client guide says. Everything
// else the standard asks is a warning that does not keep the skill out.
func parse(file, dirName string, data []byte) (*doc, []Problem) {
	probs := check(file, dirName, data)
	fields, body, bodyLine, ok, err := frontmatter.Fields(data)
	if err != nil || !ok {
		return nil, probs
	}
	d := &doc{body: strings.TrimSpace(string(body)), rawBody: string(body), bodyLine: bodyLine, fields: fields}
	for _, f := range fields {
		s, _ := f.Value.(string)
		switch f.Key {
		case "name":
			d.name = strings.TrimSpace(s)
		case "description":
			d.description = strings.TrimSpace(s)
		}
	}
	if d.name == "" || d.description == "" {
		return nil, probs
	}
	return d, probs
}

// check applies every rule of the standard to one SKILL.md whose folder is
// called dirName, reporting each finding with the file's line.
func check(file, dirName string, data []byte) []Problem {
	var out []Problem
	add := func(line int, field, format string, args ...any) {
		out = append(out, Problem{Path: file, Line: line, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if !utf8.Valid(data) {
		add(0, "", "not valid UTF-8")
	}
	fields, _, _, ok, err := frontmatter.Fields(data)
	var fe *frontmatter.Error
	switch {
	case errors.As(err, &fe):
		add(fe.Line, "", "%s", strings.TrimPrefix(fe.Msg, "front matter: "))
		return out
	case err != nil:
		add(1, "", "%v", err)
		return out
	case !ok:
		add(1, "", "no front matter: a SKILL.md opens with --- and the keys name and description")
		return out
	}
	byKey := map[string]frontmatter.Field{}
	for _, f := range fields {
		byKey[f.Key] = f
		if !slices.Contains(standardFields, f.Key) && !slices.Contains(harnessFields, f.Key) {
			add(f.Line, f.Key, "not a field of the Agent Skills specification (%s)", strings.Join(standardFields, ", "))
		}
	}
	str := func(key string) (string, int, bool) {
		f, ok := byKey[key]
		if !ok {
			return "", 1, false
		}
		s, isStr := f.Value.(string)
		if !isStr {
			add(f.Line, key, "must be a string, got %s", kind(f.Value))
			return "", f.Line, false
		}
		return s, f.Line, true
	}
	if _, ok := byKey["name"]; !ok {
		add(1, "name", "missing: the name is required")
	} else if name, line, ok := str("name"); ok {
		for _, m := range nameProblems(name, dirName) {
			add(line, "name", "%s", m)
		}
	}
	if _, ok := byKey["description"]; !ok {
		add(1, "description", "missing: the description is required")
	} else if desc, line, ok := str("description"); ok {
		switch n := utf8.RuneCountInString(desc); {
		case strings.TrimSpace(desc) == "":
			add(line, "description", "must not be empty")
		case n > MaxDescriptionLen:
			add(line, "description", "%d characters, the limit is %d", n, MaxDescriptionLen)
		}
	}
	if _, ok := byKey["compatibility"]; ok {
		if c, line, ok := str("compatibility"); ok {
			switch n := utf8.RuneCountInString(c); {
			case strings.TrimSpace(c) == "":
				add(line, "compatibility", "must not be empty when given")
			case n > MaxCompatibilityLen:
				add(line, "compatibility", "%d characters, the limit is %d", n, MaxCompatibilityLen)
			}
		}
	}
	if _, ok := byKey["license"]; ok {
		str("license")
	}
	if f, ok := byKey["metadata"]; ok {
		m, isMap := f.Value.(map[string]any)
		if !isMap {
			add(f.Line, "metadata", "must be a mapping of strings to strings, got %s", kind(f.Value))
		} else {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if _, ok := m[k].(string); !ok {
					add(f.Line, "metadata", "%s: must be a string, got %s (quote it)", k, kind(m[k]))
				}
			}
		}
	}
	if f, ok := byKey["allowed-tools"]; ok {
		switch v := f.Value.(type) {
		case string:
		case []any:
			for _, e := range v {
				if _, ok := e.(string); !ok {
					add(f.Line, "allowed-tools", "every entry must be a string, got %s", kind(e))
					break
				}
			}
		default:
			add(f.Line, "allowed-tools", "must be a space-separated string or a list of strings, got %s", kind(f.Value))
		}
	}
	return out
}

// nameProblems lists what is wrong with a skill name in a folder called
// dirName. Letters may be any lowercase (or caseless) letter, as the
// reference validator (skills-ref) allows.
func nameProblems(name, dirName string) []string {
	var out []string
	if strings.TrimSpace(name) == "" {
		return []string{"must not be empty"}
	}
	if n := utf8.RuneCountInString(name); n > MaxNameLen {
		out = append(out, fmt.Sprintf("%d characters, the limit is %d", n, MaxNameLen))
	}
	if strings.ToLower(name) != name {
		out = append(out, fmt.Sprintf("%q must be lowercase", name))
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		out = append(out, "must not start or end with a hyphen")
	}
	if strings.Contains(name, "--") {
		out = append(out, "must not contain two hyphens in a row")
	}
	if strings.IndexFunc(name, func(r rune) bool { return r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) }) >= 0 {
		out = append(out, fmt.Sprintf("%q may hold only letters, digits and hyphens", name))
	}
	if dirName != "" && name != dirName {
		out = append(out, fmt.Sprintf("%q does not match its folder's name %q", name, dirName))
	}
	return out
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int, int64, uint64, float64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
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
