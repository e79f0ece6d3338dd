package clienv

import (
	"bufio"
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"
)

// JSONFlag is the --json flag of a read command; every command adds it
// through [JSONFlag.Add] so the flag reads the same everywhere, and prints
// through [WriteJSON] when set.
type JSONFlag struct{ Set bool }

// add registers --json on cmd; usage "" says "print JSON".
func (j *JSONFlag) Add(cmd *cobra.Command, usage string) {
	if usage == "" {
		usage = "print JSON"
	}
	cmd.Flags().BoolVar(&j.Set, "json", false, usage)
}

// WriteJSON prints v as JSON for --json: 2-space indent, '/' and HTML
// characters unescaped, nil slices as [], strings that are not valid UTF-8
// (paths) with U+FFFD replacements, a trailing newline.
//
// The JSON streams through a buffer rather than being built whole: a
// compile of 100k messages prints megabytes, and holding them (and the
// doublings of a growing slice) would double the command's peak memory.
// JSONIndent is the indentation of every JSON the CLI prints.
const JSONIndent = "  "

func WriteJSON(w io.Writer, v any) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := json.MarshalWrite(bw, v, jsontext.WithIndent(JSONIndent), json.Deterministic(true), jsontext.AllowInvalidUTF8(true)); err != nil {
		return err
	}
	if err := bw.WriteByte('\n'); err != nil {
		return err
	}
	return bw.Flush()
}
