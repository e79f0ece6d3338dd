package cli

import (
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// writeJSON prints v as JSON for --json: 2-space indent, '/' and HTML
// characters unescaped, nil slices as [], strings that are not valid UTF-8
// (paths) with U+FFFD replacements, a trailing newline.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v, jsontext.WithIndent("  "), json.Deterministic(true), jsontext.AllowInvalidUTF8(true))
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
