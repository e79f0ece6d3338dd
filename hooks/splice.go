package hooks

import (
	"bytes"
	"errors"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// A settings file is edited by splicing bytes, never by re-encoding it:
// node records where each value of the document starts and ends, so an
// insertion or a removal touches only the bytes of lineage's entry.
type node struct {
	kind       jsontext.Kind // '{', '[' or a scalar's kind
	start, end int           // the value's bytes: data[start:end]
	depth      int
	members    []member // objects
	items      []*node  // arrays
}

type member struct {
	name     string
	keyStart int
	value    *node
}

// maxDepth bounds the nesting of a settings file.
const maxDepth = 256

// parseDoc parses a settings file, which must hold one JSON object.
func parseDoc(data []byte) (*node, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	n, err := parseNode(dec, data, 0)
	if err != nil {
		return nil, describeJSON(data, dec.InputOffset(), err)
	}
	if _, err := dec.ReadToken(); err == nil {
		return nil, errors.New("more than one JSON value")
	}
	if n.kind != '{' {
		return nil, errors.New("not a JSON object")
	}
	return n, nil
}

// next is the offset of the next token after off: whitespace and the
// separators ',' and ':' are skipped.
func next(data []byte, off int) int {
	for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
}

func parseNode(dec *jsontext.Decoder, data []byte, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deeply")
	}
	n := &node{kind: dec.PeekKind(), start: next(data, int(dec.InputOffset())), depth: depth}
	switch n.kind {
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		for dec.PeekKind() != '}' {
			keyStart := next(data, int(dec.InputOffset()))
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String()
			v, err := parseNode(dec, data, depth+1)
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, member{name, keyStart, v})
		}
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		for dec.PeekKind() != ']' {
			v, err := parseNode(dec, data, depth+1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
	default:
		if err := dec.SkipValue(); err != nil {
			return nil, err
		}
		n.end = int(dec.InputOffset())
		return n, nil
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	n.end = int(dec.InputOffset())
	return n, nil
}

// member returns the value of the last member called name, or nil.
func (n *node) member(name string) *node {
	if i := n.memberIndex(name); i >= 0 {
		return n.members[i].value
	}
	return nil
}

func (n *node) memberIndex(name string) int {
	if n == nil {
		return -1
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].name == name {
			return i
		}
	}
	return -1
}

// path follows member names from n.
func (n *node) path(names ...string) *node {
	for _, name := range names {
		if n == nil || n.kind != '{' {
			return nil
		}
		n = n.member(name)
	}
	return n
}

// text is a string value's text, "" for anything else.
func (n *node) text(data []byte) string {
	var s string
	if n.kind != '"' || json.Unmarshal(data[n.start:n.end], &s) != nil {
		return ""
	}
	return s
}

// children returns the spans of n's members (from the key) or items.
func (n *node) children() [][2]int {
	var out [][2]int
	for _, m := range n.members {
		out = append(out, [2]int{m.keyStart, m.value.end})
	}
	for _, it := range n.items {
		out = append(out, [2]int{it.start, it.end})
	}
	return out
}

// remove deletes child i with one separator: the comma and space before
// it, or, for the first child, up to the next child; an only child leaves
// its container empty ("{}" or "[]").
func (n *node) remove(data []byte, i int) []byte {
	ch := n.children()
	var from, to int
	switch {
	case i > 0:
		from, to = ch[i-1][1], ch[i][1]
	case len(ch) > 1:
		from, to = ch[0][0], ch[1][0]
	default:
		from, to = n.start+1, n.end-1
	}
	return slices.Concat(data[:from], data[to:])
}

// style is how a file is indented: unit is one level's indentation, ""
// for a file written on one line.
type style struct{ unit, newline string }

func detectStyle(data []byte) style {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		return style{}
	}
	nl := "\n"
	if i > 0 && data[i-1] == '\r' {
		nl = "\r\n"
	}
	rest := data[i+1:]
	j := 0
	for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
		j++
	}
	if j == 0 {
		return style{unit: "  ", newline: nl}
	}
	return style{unit: string(rest[:j]), newline: nl}
}

// insert adds a member name (objects) or an item (arrays, name "") holding
// v as n's last child, in the file's style.
func (n *node) insert(data []byte, st style, name string, v any) ([]byte, error) {
	inner := strings.Repeat(st.unit, n.depth+1)
	var opts []json.Options
	if st.unit != "" {
		opts = append(opts, jsontext.WithIndent(st.unit), jsontext.WithIndentPrefix(inner))
	}
	val, err := json.Marshal(v, opts...)
	if err != nil {
		return nil, err
	}
	if st.newline == "\r\n" {
		val = bytes.ReplaceAll(val, []byte("\n"), []byte(st.newline))
	}
	var chunk []byte
	if name != "" {
		key, _ := json.Marshal(name)
		sep := ": "
		if st.unit == "" {
			sep = ":"
		}
		chunk = slices.Concat(key, []byte(sep), val)
	} else {
		chunk = val
	}
	lead := st.newline + inner
	if ch := n.children(); len(ch) > 0 {
		at := ch[len(ch)-1][1]
		return slices.Concat(data[:at], []byte(","+lead), chunk, data[at:]), nil
	}
	closing := st.newline + strings.Repeat(st.unit, n.depth)
	return slices.Concat(data[:n.start+1], []byte(lead), chunk, []byte(closing), data[n.end-1:]), nil
}
