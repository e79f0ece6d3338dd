package clienv

import (
	"errors"
	"io"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/tract/wire"
)

// ComposeErr maps the errors of a composition (lineage context, handoff,
// sessions fork) to exit codes: a budget the pinned part exceeds and an
// OpenAI request with no message are findings (3), bad options a usage
// error (2), the rest as the service they came from maps them.
func ComposeErr(err error) error {
	var be *compose.BudgetError
	var ve *compose.ValidationError
	switch {
	case errors.As(err, &be), errors.Is(err, wire.ErrEmptyContext):
		return FindingError(err)
	case errors.As(err, &ve):
		return UsageError("%v", ve)
	}
	return TractErr(AgentsError(err))
}

// WriteRequest prints a composed request in its format: text as it is, an
// OpenAI body as [wire.WriteOpenAIJSON] writes it (the same bytes as
// WriteJSON, without the encoder's work per token), any other as JSON.
func WriteRequest(w io.Writer, req wire.Rendered) error {
	switch req.Format {
	case compose.FormatText:
		_, err := io.WriteString(w, req.Text)
		return err
	case compose.FormatOpenAI:
		return wire.WriteOpenAIJSON(w, req.OpenAI, JSONIndent)
	}
	return WriteJSON(w, req)
}
