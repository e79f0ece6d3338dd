package wire

import (
	"errors"
	"fmt"

	"github.com/agentlineage/lineage/tract"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Format is an output format of a compiled context.
type Format string

// Output formats of a compiled context.
const (
	// FormatJSON is the full record: the Result itself, with provenance.
	FormatJSON      Format = "json"
	FormatOpenAI    Format = "openai"
	FormatAnthropic Format = "anthropic"
	FormatText      Format = "text"
	// FormatOpenAIRequest is an OpenAI chat request body: messages and tools.
	FormatOpenAIRequest Format = "openai-request"
	// FormatAnthropicRequest is a Messages API request body: model and
	// token cap when given, system, messages and tools (RenderRequest).
	FormatAnthropicRequest Format = "anthropic-request"
)

// Validate checks that f is one of the formats a compiled context prints
// in (all but anthropic-request, which only a model request has).
func (f Format) Validate() error {
	switch f {
	case FormatJSON, FormatOpenAI, FormatOpenAIRequest, FormatAnthropic, FormatText:
		return nil
	}
	return &tract.ValidationError{Field: "format", Value: string(f), Reason: "want json, openai, openai-request, anthropic or text"}
}

// Rendered is a compiled context in one format. Exactly the field of its
// format is set: Result for json, OpenAI, OpenAIRequest (an OpenAIBody
// from RenderRequest), Anthropic, AnthropicRequest or Text. It marshals as
// that field's value (the text as a JSON string).
type Rendered struct {
	Format           Format
	Result           *tract.Result
	OpenAI           []OpenAIMessage
	OpenAIRequest    *OpenAIBody
	Anthropic        *Anthropic
	AnthropicRequest *AnthropicRequest
	Text             string
}

// ErrEmptyContext is a context with no message rendered in an OpenAI
// format: the API refuses a request whose messages are empty, so Render
// refuses to make one (the Anthropic body gets a first user turn instead).
var ErrEmptyContext = errors.New("the context compiles to no message (an empty tract, every message skipped, or a budget that drops them all): an OpenAI request needs at least one message")

// Render puts a compiled context in format f. An OpenAI format of a
// context without messages is ErrEmptyContext.
func Render(res tract.Result, f Format) (Rendered, error) { return RenderIn(res, f, nil) }

// RenderIn is Render building the OpenAI formats' list of messages in
// *scratch (grown as needed) instead of new memory: that list is then
// valid only until the next render given the same scratch. What a caller
// that encodes the request at once and renders again every turn wants
// (compose.Scratch).
func RenderIn(res tract.Result, f Format, scratch *[]OpenAIMessage) (Rendered, error) {
	if err := f.Validate(); err != nil {
		return Rendered{}, err
	}
	out := Rendered{Format: f}
	if (f == FormatOpenAI || f == FormatOpenAIRequest) && len(res.Messages) == 0 {
		return Rendered{}, fmt.Errorf("tract %s: %w", res.Tract, ErrEmptyContext)
	}
	switch f {
	case FormatJSON:
		out.Result = &res
	case FormatOpenAI:
		out.OpenAI = openAIIn(res.Messages, scratch)
	case FormatOpenAIRequest:
		out.OpenAIRequest = &OpenAIBody{OpenAIRequest: OpenAIRequest{Messages: openAIIn(res.Messages, scratch), Tools: openAITools(res.Tools)}}
	case FormatAnthropic:
		a := ToAnthropic(res.Messages)
		a.Tools = anthropicTools(res.Tools)
		out.Anthropic = &a
	case FormatText:
		out.Text = tract.Text(res.Messages)
	}
	return out, nil
}

// JSON is the value a JSON format prints (the Result, the OpenAI messages
// or a request body); ok is false for text.
func (r Rendered) JSON() (v any, ok bool) {
	switch r.Format {
	case FormatJSON:
		return r.Result, true
	case FormatOpenAI:
		return r.OpenAI, true
	case FormatOpenAIRequest:
		return r.OpenAIRequest, true
	case FormatAnthropic:
		return r.Anthropic, true
	case FormatAnthropicRequest:
		return r.AnthropicRequest, true
	}
	return nil, false
}

// MarshalJSONTo writes the value of r's format (JSON), or its text as a
// JSON string, with the encoder's options.
func (r Rendered) MarshalJSONTo(enc *jsontext.Encoder) error {
	v, ok := r.JSON()
	if !ok {
		return enc.WriteToken(jsontext.String(r.Text))
	}
	return json.MarshalEncode(enc, v)
}

// RequestOptions are what a model request adds to a context: the model
// and the most tokens of the answer (zero values are left out).
type RequestOptions struct {
	Model     string
	MaxTokens int
}

// RenderRequest is RenderIn for a model request (compose): any format but
// json, a request body (openai-request, anthropic-request) carrying o.
func RenderRequest(res tract.Result, f Format, o RequestOptions, scratch *[]OpenAIMessage) (Rendered, error) {
	if f != FormatAnthropicRequest {
		out, err := RenderIn(res, f, scratch)
		if err == nil && f == FormatOpenAIRequest {
			out.OpenAIRequest.Model, out.OpenAIRequest.MaxCompletionTokens = o.Model, o.MaxTokens
		}
		return out, err
	}
	out, err := RenderIn(res, FormatAnthropic, scratch)
	if err != nil {
		return Rendered{}, err
	}
	a := out.Anthropic
	return Rendered{Format: f, AnthropicRequest: &AnthropicRequest{Model: o.Model, MaxTokens: o.MaxTokens, System: a.System, Messages: a.Messages, Tools: a.Tools}}, nil
}
