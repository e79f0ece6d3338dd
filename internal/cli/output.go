package cli

import (
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"
)

// jsonFlag is the --json flag of a read command; every command adds it
// through [jsonFlag.add] so the flag reads the same everywhere, and prints
// through [writeJSON] when set.
type jsonFlag struct{ set bool }

// add registers --json on cmd; usage "" says "print JSON".
func (j *jsonFlag) add(cmd *cobra.Command, usage string) {
	if usage == "" {
		usage = "print JSON"
	}
	cmd.Flags().BoolVar(&j.set, "json", false, usage)
}

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
