package skills

import (
	"errors"
	"fmt"
	"slices"
	"strings"
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
	c := &findings{file: file}
	if !utf8.Valid(data) {
		c.add(0, "", "not valid UTF-8")
	}
	fields, _, _, ok, err := frontmatter.Fields(data)
	var fe *frontmatter.Error
	switch {
	case errors.As(err, &fe):
		c.add(fe.Line, "", "%s", strings.TrimPrefix(fe.Msg, "front matter: "))
		return c.out
	case err != nil:
		c.add(1, "", "%v", err)
		return c.out
	case !ok:
		c.add(1, "", "no front matter: a SKILL.md opens with --- and the keys name and description")
		return c.out
	}
	c.byKey = make(map[string]frontmatter.Field, len(fields))
	for _, f := range fields {
		c.byKey[f.Key] = f
		if !slices.Contains(standardFields, f.Key) && !slices.Contains(harnessFields, f.Key) {
			c.add(f.Line, f.Key, "not a field of the Agent Skills specification (%s)", strings.Join(standardFields, ", "))
		}
	}
	c.name(dirName)
	c.description()
	c.compatibility()
	if _, ok := c.byKey["license"]; ok {
		c.str("license")
	}
	c.metadata()
	c.allowedTools()
	return c.out
}

// findings are the problems [check] found in one file's front matter,
// whose fields it looks up by key.
type findings struct {
	file  string
	byKey map[string]frontmatter.Field
	out   []Problem
}

func (c *findings) add(line int, field, format string, args ...any) {
	c.out = append(c.out, Problem{Path: c.file, Line: line, Field: field, Message: fmt.Sprintf(format, args...)})
}

// str returns the string value of key and its line; a value of another
// type is a finding, and a missing key is line 1.
func (c *findings) str(key string) (string, int, bool) {
	f, ok := c.byKey[key]
	if !ok {
		return "", 1, false
	}
	s, isStr := f.Value.(string)
	if !isStr {
		c.add(f.Line, key, "must be a string, got %s", kind(f.Value))
		return "", f.Line, false
	}
	return s, f.Line, true
}

// name checks the required name against the standard and its folder's
// name.
func (c *findings) name(dirName string) {
	if _, ok := c.byKey["name"]; !ok {
		c.add(1, "name", "missing: the name is required")
	} else if name, line, ok := c.str("name"); ok {
		for _, m := range nameProblems(name, dirName) {
			c.add(line, "name", "%s", m)
		}
	}
}

// description checks the required description's length.
func (c *findings) description() {
	if _, ok := c.byKey["description"]; !ok {
		c.add(1, "description", "missing: the description is required")
	} else if desc, line, ok := c.str("description"); ok {
		switch n := utf8.RuneCountInString(desc); {
		case strings.TrimSpace(desc) == "":
			c.add(line, "description", "must not be empty")
		case n > MaxDescriptionLen:
			c.add(line, "description", "%d characters, the limit is %d", n, MaxDescriptionLen)
		}
	}
}

// compatibility checks the optional compatibility note's length.
func (c *findings) compatibility() {
	if _, ok := c.byKey["compatibility"]; !ok {
		return
	}
	if v, line, ok := c.str("compatibility"); ok {
		switch n := utf8.RuneCountInString(v); {
		case strings.TrimSpace(v) == "":
			c.add(line, "compatibility", "must not be empty when given")
		case n > MaxCompatibilityLen:
			c.add(line, "compatibility", "%d characters, the limit is %d", n, MaxCompatibilityLen)
		}
	}
}

// metadata checks that metadata maps strings to strings, naming each key
// whose value is not one, in key order.
func (c *findings) metadata() {
	f, ok := c.byKey["metadata"]
	if !ok {
		return
	}
	m, isMap := f.Value.(map[string]any)
	if !isMap {
		c.add(f.Line, "metadata", "must be a mapping of strings to strings, got %s", kind(f.Value))
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, ok := m[k].(string); !ok {
			c.add(f.Line, "metadata", "%s: must be a string, got %s (quote it)", k, kind(m[k]))
		}
	}
}

// allowedTools checks that allowed-tools is a string or a list of
// strings (one finding for the first entry that is not).
func (c *findings) allowedTools() {
	f, ok := c.byKey["allowed-tools"]
	if !ok {
		return
	}
	switch v := f.Value.(type) {
	case string:
	case []any:
		for _, e := range v {
			if _, ok := e.(string); !ok {
				c.add(f.Line, "allowed-tools", "every entry must be a string, got %s", kind(e))
				break
			}
		}
	default:
		c.add(f.Line, "allowed-tools", "must be a space-separated string or a list of strings, got %s", kind(f.Value))
	}
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
