package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlineage/lineage/internal/jsonerr"
)

// describeJSON words an error from reading the JSON in data for people:
// broken syntax as the line and column of the bad byte and what was wrong
// there, a value of the wrong type as where it is and what was wanted
// ([jsonerr.Describe]); never the decoder's package or Go type names.
// off is where the decoder stood, for errors that carry no offset.
func describeJSON(data []byte, off int64, err error) error {
	var syn *jsontext.SyntacticError
	if !errors.As(err, &syn) {
		if d := jsonerr.Describe(err); d != err {
			return d
		}
		line, col := position(data, off)
		return fmt.Errorf("line %d, column %d: %w", line, col, err)
	}
	msg := strings.TrimPrefix(syn.Err.Error(), "jsontext: ")
	switch {
	case errors.Is(syn.Err, jsontext.ErrDuplicateName):
		msg = fmt.Sprintf("duplicate key %q", syn.JSONPointer)
	case len(bytes.TrimSpace(data)) == 0:
		return errors.New("empty: no JSON value")
	}
	line, col := position(data, syn.ByteOffset)
	return fmt.Errorf("line %d, column %d: %s", line, col, msg)
}

// position is the 1-based line and byte column of the first byte at or
// after off that is not whitespace, so a line is the one that holds the
// offending byte.
func position(data []byte, off int64) (line, col int) {
	o := min(int(max(off, 0)), len(data))
	for o < len(data) && strings.IndexByte(" \t\r\n", data[o]) >= 0 {
		o++
	}
	before := data[:min(o, len(data))]
	return 1 + bytes.Count(before, []byte("\n")), 1 + len(before) - (bytes.LastIndexByte(before, '\n') + 1)
}
