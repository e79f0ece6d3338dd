package frontmatter

import (
	"bytes"
	"errors"
	"io"

	"go.yaml.in/yaml/v3"
)

// Field is one top-level key of a front matter with the line it is on and
// its value decoded generically: string, int, float64, bool, nil, []any or
// map[string]any (YAML's own scalar rules: `version: 1.0` is a float64).
type Field struct {
	Key   string
	Line  int // 1-based in the whole file
	Value any
}

// Fields splits data and returns the front matter's top-level keys in file
// order with their lines, for checks that must say where a field is. A
// front matter that is not a mapping is an error naming its line; a key
// given twice is an error naming the second. ok is false (and fields nil)
// when data has no front matter.
func Fields(data []byte) (fields []Field, body []byte, bodyLine int, ok bool, err error) {
	yamlText, body, bodyLine, ok, err := Split(data)
	if err != nil || !ok {
		return nil, body, bodyLine, ok, err
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(yamlText)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, body, bodyLine, true, nil
		}
		return nil, nil, 0, true, yamlError(err)
	}
	m := &doc
	if m.Kind == yaml.DocumentNode && len(m.Content) == 1 {
		m = m.Content[0]
	}
	if m.Kind != yaml.MappingNode {
		return nil, nil, 0, true, &Error{Line: m.Line + 1, Msg: "not a mapping of keys to values"}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		var val any
		if err := v.Decode(&val); err != nil {
			return nil, nil, 0, true, yamlError(err)
		}
		if seen[k.Value] {
			return nil, nil, 0, true, &Error{Line: k.Line + 1, Msg: "key " + quote(k.Value) + " given twice"}
		}
		seen[k.Value] = true
		fields = append(fields, Field{Key: k.Value, Line: k.Line + 1, Value: val})
	}
	return fields, body, bodyLine, true, nil
}

func quote(s string) string {
	b, _ := yaml.Marshal(s)
	return string(bytes.TrimSpace(b))
}
