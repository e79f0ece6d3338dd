package triad

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Kind is the JSON type of a [Value].
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Object
	Array
)

// Value is one JSON value held losslessly: objects keep their members in file
// order (duplicates included), numbers keep their exact text, and every shape
// the file has is representable.
type Value struct {
	Kind Kind
	// Text is the string's value, the number's literal text, or "true"/"false".
	Text    string
	Members []Member
	Items   []*Value

	// from and leaf record, in a merge result only, the file a value came
	// from and whether it is reported as a whole.
	from string
	leaf bool
	// keys indexes the members of a merged object, union the elements of a
	// merged array, so wide documents merge in linear time.
	keys  map[string]int
	union *unionIndex
}

// Member is one name/value pair of an object.
type Member struct {
	Key   string
	Value *Value
}

// NewString returns a string value.
func NewString(s string) *Value { return &Value{Kind: String, Text: s} }

// NewNumber returns a number value with the given literal text.
func NewNumber(text string) *Value { return &Value{Kind: Number, Text: text} }

// NewObject returns an empty object.
func NewObject() *Value { return &Value{Kind: Object} }

// NewArray returns an array of items.
func NewArray(items ...*Value) *Value { return &Value{Kind: Array, Items: items} }

// Get returns the value of the last member named key, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// Str returns the string at key, or "" when it is absent or not a string.
func (v *Value) Str(key string) string {
	if m := v.Get(key); m != nil && m.Kind == String {
		return m.Text
	}
	return ""
}

// Set replaces the value of every member named key (keeping the first one's
// position) or appends a new member.
func (v *Value) Set(key string, val *Value) {
	found := false
	out := v.Members[:0]
	for _, m := range v.Members {
		if m.Key == key {
			if found {
				continue
			}
			found = true
			m.Value = val
		}
		out = append(out, m)
	}
	v.Members = out
	if !found {
		v.Members = append(v.Members, Member{Key: key, Value: val})
	}
}

// Delete removes every member named key.
func (v *Value) Delete(key string) {
	out := v.Members[:0]
	for _, m := range v.Members {
		if m.Key != key {
			out = append(out, m)
		}
	}
	v.Members = out
}

// Clone returns a deep copy of v.
func (v *Value) Clone() *Value {
	if v == nil {
		return nil
	}
	c := &Value{Kind: v.Kind, Text: v.Text}
	if v.Members != nil {
		c.Members = make([]Member, len(v.Members))
		for i, m := range v.Members {
			c.Members[i] = Member{Key: m.Key, Value: m.Value.Clone()}
		}
	}
	if v.Items != nil {
		c.Items = make([]*Value, len(v.Items))
		for i, it := range v.Items {
			c.Items[i] = it.Clone()
		}
	}
	return c
}

// IsEmpty reports whether v counts as missing in a merge: nil, null, or a
// string that is blank after trimming. false, 0, {} and [] are values.
func (v *Value) IsEmpty() bool {
	return v == nil || v.Kind == Null || (v.Kind == String && strings.TrimSpace(v.Text) == "")
}

// SyntaxError is invalid JSON at a position of a file.
type SyntaxError struct {
	File   string
	Line   int
	Column int
	Err    error
}

func (e *SyntaxError) Error() string {
	name := e.File
	if name == "" {
		name = "input"
	}
	return fmt.Sprintf("%s: line %d, column %d: invalid json: %v", name, e.Line, e.Column, e.Err)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 10000

// Decode parses one JSON document. Duplicate member names are kept in order;
// invalid UTF-8, trailing data and malformed JSON are a *SyntaxError naming
// file, line and column (1-based, column counted in characters).
func Decode(file string, data []byte) (*Value, error) {
	d := &decoder{dec: jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))}
	v, err := d.value(0)
	if err == nil {
		if _, terr := d.dec.ReadToken(); terr != io.EOF {
			if terr == nil {
				terr = errors.New("unexpected data after the top-level value")
			}
			err = terr
		}
	}
	if err != nil {
		return nil, syntaxError(file, data, d.dec.InputOffset(), err)
	}
	return v, nil
}

func syntaxError(file string, data []byte, off int64, err error) *SyntaxError {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		off = se.ByteOffset
		err = se.Err
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := lineColumn(data[:off])
	return &SyntaxError{File: file, Line: line, Column: col, Err: err}
}

func lineColumn(before []byte) (line, col int) {
	line = 1 + bytes.Count(before, []byte{'\n'})
	last := bytes.LastIndexByte(before, '\n')
	return line, utf8.RuneCount(before[last+1:]) + 1
}

// decoder builds a Value tree, allocating nodes in slabs: a document has
// many small values and one allocation per node dominates decoding.
type decoder struct {
	dec  *jsontext.Decoder
	slab []Value
	// names interns object names and short strings, which repeat in every
	// entry of a log.
	names map[string]string
}

// str reads the next string (or object name) and returns its value,
// interned when short and free of escapes.
func (d *decoder) str() (string, error) {
	raw, err := d.dec.ReadValue()
	if err != nil {
		return "", err
	}
	if len(raw) <= 40 && bytes.IndexByte(raw[1:len(raw)-1], '\\') < 0 {
		if s, ok := d.names[string(raw[1:len(raw)-1])]; ok {
			return s, nil
		}
		s := string(raw[1 : len(raw)-1])
		if d.names == nil {
			d.names = map[string]string{}
		}
		d.names[s] = s
		return s, nil
	}
	b, err := jsontext.AppendUnquote(nil, raw)
	return string(b), err
}

func (d *decoder) node(k Kind, text string) *Value {
	if len(d.slab) == 0 {
		d.slab = make([]Value, 256)
	}
	v := &d.slab[0]
	d.slab = d.slab[1:]
	v.Kind, v.Text = k, text
	return v
}

func (d *decoder) value(depth int) (*Value, error) {
	if depth > maxDepth {
		return nil, errors.New("nesting too deep")
	}
	if d.dec.PeekKind() == '"' {
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return d.node(String, s), nil
	}
	tok, err := d.dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return d.node(Null, ""), nil
	case 't', 'f':
		return d.node(Bool, tok.String()), nil
	case '0':
		return d.node(Number, tok.String()), nil
	case '"':
		return d.node(String, tok.String()), nil
	case '{':
		return d.object(depth)
	case '[':
		return d.array(depth)
	}
	return nil, fmt.Errorf("unexpected token %q", tok.Kind())
}

func (d *decoder) object(depth int) (*Value, error) {
	v := d.node(Object, "")
	v.Members = []Member{}
	for d.dec.PeekKind() != '}' {
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		mv, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Members = append(v.Members, Member{Key: key, Value: mv})
	}
	_, err := d.dec.ReadToken()
	return v, err
}

func (d *decoder) array(depth int) (*Value, error) {
	v := d.node(Array, "")
	v.Items = []*Value{}
	for d.dec.PeekKind() != ']' {
		it, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Items = append(v.Items, it)
	}
	_, err := d.dec.ReadToken()
	return v, err
}

// EncodeOptions chooses the layout of [Encode].
type EncodeOptions struct {
	// SortKeys sorts object members by name (byte-wise) instead of keeping
	// file order.
	SortKeys bool
	// Compact writes no whitespace; otherwise 2-space indentation.
	Compact bool
	// SpaceBeforeColon writes `"key" : value`, the layout of Swift's
	// JSONEncoder that most CLIA files have.
	SpaceBeforeColon bool
	// OpenEmpty writes empty arrays and objects as "[", a blank line and
	// "]" (Swift's layout) instead of "[]".
	OpenEmpty bool
}

// DetectLayout returns the indented layout of an existing file, so a
// rewrite changes only what it must: key order is kept, and a file written
// as `"key" : value` keeps that separator.
func DetectLayout(data []byte) EncodeOptions {
	return EncodeOptions{
		SpaceBeforeColon: bytes.Contains(data, []byte(`" : `)),
		OpenEmpty:        bytes.Contains(data, []byte("[\n\n")) || bytes.Contains(data, []byte("{\n\n")),
	}
}

// KeysSorted reports whether every object in v has its members in byte-wise
// order, so that encoding with SortKeys changes nothing that exists.
func KeysSorted(v *Value) bool {
	if v == nil {
		return true
	}
	for i, m := range v.Members {
		if i > 0 && v.Members[i-1].Key > m.Key {
			return false
		}
		if !KeysSorted(m.Value) {
			return false
		}
	}
	for _, it := range v.Items {
		if !KeysSorted(it) {
			return false
		}
	}
	return true
}

func appendEmpty(b []byte, open, close byte, depth int, opts EncodeOptions) []byte {
	if !opts.OpenEmpty || opts.Compact {
		return append(b, open, close)
	}
	b = append(b, open, '\n')
	b = appendIndent(b, depth, opts)
	return append(b, close)
}

// Encode writes v as JSON with '/' and HTML characters unescaped and, unless
// Compact, 2-space indentation and a trailing newline.
func Encode(v *Value, opts EncodeOptions) []byte {
	return AppendEncode(nil, v, opts)
}

// AppendEncode is [Encode] appending to dst; pass a buffer with capacity
// for the expected size to avoid regrowing it.
func AppendEncode(dst []byte, v *Value, opts EncodeOptions) []byte {
	b := appendValue(dst, v, 0, opts)
	if !opts.Compact {
		b = append(b, '\n')
	}
	return b
}

// Canonical is the merged-output layout: sorted keys, 2-space indent, '/'
// unescaped, a trailing newline.
func Canonical(v *Value) []byte { return Encode(v, EncodeOptions{SortKeys: true}) }

func appendIndent(b []byte, depth int, opts EncodeOptions) []byte {
	if opts.Compact {
		return b
	}
	b = append(b, '\n')
	for i := 0; i < depth; i++ {
		b = append(b, "  "...)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	if plainString(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	out, err := jsontext.AppendQuote(b, s)
	if err != nil {
		// Invalid UTF-8 was replaced by U+FFFD; the quoted text is still valid.
		return out
	}
	return out
}

// plainString reports whether s needs no escaping: valid UTF-8 without
// control characters, quotes or backslashes. jsontext.AppendQuote would copy
// it unchanged.
func plainString(s string) bool {
	ascii := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return ascii || utf8.ValidString(s)
}

func appendValue(b []byte, v *Value, depth int, opts EncodeOptions) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	switch v.Kind {
	case Null:
		return append(b, "null"...)
	case Bool, Number:
		return append(b, v.Text...)
	case String:
		return appendString(b, v.Text)
	case Array:
		if len(v.Items) == 0 {
			return appendEmpty(b, '[', ']', depth, opts)
		}
		b = append(b, '[')
		for i, it := range v.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendIndent(b, depth+1, opts)
			b = appendValue(b, it, depth+1, opts)
		}
		b = appendIndent(b, depth, opts)
		return append(b, ']')
	}
	if len(v.Members) == 0 {
		return appendEmpty(b, '{', '}', depth, opts)
	}
	members := v.Members
	if opts.SortKeys {
		members = append([]Member(nil), members...)
		sort.SliceStable(members, func(i, j int) bool { return members[i].Key < members[j].Key })
	}
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendIndent(b, depth+1, opts)
		b = appendString(b, m.Key)
		if opts.SpaceBeforeColon && !opts.Compact {
			b = append(b, ' ')
		}
		b = append(b, ':')
		if !opts.Compact {
			b = append(b, ' ')
		}
		b = appendValue(b, m.Value, depth+1, opts)
	}
	b = appendIndent(b, depth, opts)
	return append(b, '}')
}

// Equal reports whether a and b are the same JSON value with the same member
// order and the same number texts.
func Equal(a, b *Value) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Text != b.Text || len(a.Members) != len(b.Members) || len(a.Items) != len(b.Items) {
		return false
	}
	for i := range a.Members {
		if a.Members[i].Key != b.Members[i].Key || !Equal(a.Members[i].Value, b.Members[i].Value) {
			return false
		}
	}
	for i := range a.Items {
		if !Equal(a.Items[i], b.Items[i]) {
			return false
		}
	}
	return true
}
