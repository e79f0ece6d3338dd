package tract

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"

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
)

// Validate checks that f is one of the formats.
func (f Format) Validate() error {
	switch f {
	case FormatJSON, FormatOpenAI, FormatOpenAIRequest, FormatAnthropic, FormatText:
		return nil
	}
	return &ValidationError{Field: "format", Value: string(f), Reason: "want json, openai, openai-request, anthropic or text"}
}

// Rendered is a compiled context in one format. Exactly the field of its
// format is set: Result for json, OpenAI, OpenAIRequest, Anthropic or Text.
type Rendered struct {
	Format        Format
	Result        *Result
	OpenAI        []OpenAIMessage
	OpenAIRequest *OpenAIRequest
	Anthropic     *Anthropic
	Text          string
}

// ErrEmptyContext is a context with no message rendered in an OpenAI
// format: the API refuses a request whose messages are empty, so Render
// refuses to make one (the Anthropic body gets a first user turn instead).
var ErrEmptyContext = errors.New("the context compiles to no message (an empty tract, every message skipped, or a budget that drops them all): an OpenAI request needs at least one message")

// Render puts a compiled context in format f. An OpenAI format of a
// context without messages is ErrEmptyContext.
func Render(res Result, f Format) (Rendered, error) { return RenderIn(res, f, nil) }

// RenderIn is Render building the OpenAI formats' list of messages in
// *scratch (grown as needed) instead of new memory: that list is then
// valid only until the next render given the same scratch. What a caller
// that encodes the request at once and renders again every turn wants
// (compose.Scratch).
func RenderIn(res Result, f Format, scratch *[]OpenAIMessage) (Rendered, error) {
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
		out.OpenAIRequest = &OpenAIRequest{Messages: openAIIn(res.Messages, scratch), Tools: openAITools(res.Tools)}
	case FormatAnthropic:
		a := ToAnthropic(res.Messages)
		a.Tools = anthropicTools(res.Tools)
		out.Anthropic = &a
	case FormatText:
		out.Text = Text(res.Messages)
	}
	return out, nil
}

// JSON is the value a JSON format prints (the Result, the OpenAI messages
// or the Anthropic request body); ok is false for text.
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
	}
	return nil, false
}

// OpenAIMessage is a chat message as the OpenAI API takes it.
type OpenAIMessage struct {
	Role       string           `json:"role"`
	Content    *string          `json:"content"`
	Name       string           `json:"name,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
	ToolCalls  []OpenAIToolCall `json:"tool_calls,omitempty"`
}

// OpenAIToolCall is an assistant's function call.
type OpenAIToolCall struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction names a function and its JSON arguments.
type OpenAIFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// OpenAI renders messages for the OpenAI chat API, repaired so the API
// accepts them (see apiMessages).
func OpenAI(msgs []Message) []OpenAIMessage { return openAIIn(msgs, nil) }

// openAIIn is OpenAI in scratch's memory when given (see RenderIn).
func openAIIn(msgs []Message, scratch *[]OpenAIMessage) []OpenAIMessage {
	msgs = apiMessages(msgs)
	var out []OpenAIMessage
	if scratch != nil && cap(*scratch) >= len(msgs) {
		out = (*scratch)[:len(msgs)]
		clear((*scratch)[len(msgs):cap(*scratch)])
	} else {
		out = make([]OpenAIMessage, len(msgs), len(msgs)+len(msgs)/8)
	}
	for i := range msgs {
		out[i] = openAIMessage(&msgs[i])
	}
	if scratch != nil {
		*scratch = out
	}
	return out[:len(out):len(out)]
}

// openAIMessage is m in the OpenAI shape; Content points into m (read
// only, like every Result slice): no copy of each text's header.
func openAIMessage(m *Message) OpenAIMessage {
	om := OpenAIMessage{Role: m.Role, Content: &m.Content, Name: m.Name, ToolCallID: m.ToolCallID}
	if len(m.ToolCalls) > 0 && m.Content == "" {
		om.Content = nil
	}
	for _, tc := range m.ToolCalls {
		om.ToolCalls = append(om.ToolCalls, OpenAIToolCall{ID: tc.ID, Type: "function", Function: OpenAIFunction{Name: tc.Name, Arguments: tc.Arguments}})
	}
	return om
}

// Anthropic is a request body's system and messages for the Anthropic
// Messages API.
type Anthropic struct {
	System   string             `json:"system"`
	Messages []AnthropicMessage `json:"messages"`
	// Tools are the definitions of the latest tools commit, if any.
	Tools []AnthropicTool `json:"tools,omitempty"`
}

// AnthropicMessage is one turn; roles alternate user and assistant.
type AnthropicMessage struct {
	Role    string           `json:"role"`
	Content []AnthropicBlock `json:"content"`
}

// AnthropicBlock is a content block: text, tool_use or tool_result.
type AnthropicBlock struct {
	Type      string         `json:"type"`
	Text      string         `json:"text,omitempty"`
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name,omitempty"`
	Input     jsontext.Value `json:"input,omitzero"`
	ToolUseID string         `json:"tool_use_id,omitempty"`
	Content   string         `json:"content,omitempty"`
}

// ContinuationText is the user turn ToAnthropic puts before a context whose
// first turn is the assistant's: the Messages API wants a user turn first.
const ContinuationText = "(context continues)"

// ToAnthropic renders messages for the Anthropic Messages API so that the
// request is valid as it stands:
//   - system text is gathered into System, joined by blank lines;
//   - consecutive messages of one role are merged into one turn, so roles
//     alternate user, assistant, user…;
//   - a context that starts with the assistant, or has no message besides
//     system text, gets a first user turn holding only ContinuationText;
//   - tool calls and results are paired first as for OpenAI (apiMessages);
//   - tool calls are tool_use blocks of the assistant turn (arguments ""
//     becoming {}), tool results tool_result blocks of the following user
//     turn, placed before that turn's text;
//   - a tool_use without its tool_result in the next turn, or a tool_result
//     without its tool_use in the turn before (one side skipped by an
//     annotation, say), becomes a plain text block that says so; a tool_use
//     in the final turn stays (its result is still to come);
//   - empty or blank text is left out (the API refuses empty text blocks),
//     and trailing white space of a final assistant turn is trimmed.
func ToAnthropic(msgs []Message) Anthropic {
	msgs = apiMessages(msgs)
	var system []string
	out := Anthropic{Messages: []AnthropicMessage{}}
	for _, m := range msgs {
		if m.Role == RoleSystem {
			system = append(system, m.Content)
			continue
		}
		role, blocks := anthropicBlocks(m)
		if len(blocks) == 0 {
			continue
		}
		if n := len(out.Messages); n > 0 && out.Messages[n-1].Role == role {
			last := &out.Messages[n-1]
			last.Content = append(last.Content, blocks...)
			continue
		}
		out.Messages = append(out.Messages, AnthropicMessage{Role: role, Content: blocks})
	}
	out.System = strings.Join(system, "\n\n")
	pairTools(out.Messages)
	for i := range out.Messages {
		if out.Messages[i].Role == RoleUser {
			toolResultsFirst(out.Messages[i].Content)
		}
	}
	if len(out.Messages) == 0 || out.Messages[0].Role == RoleAssistant {
		first := AnthropicMessage{Role: RoleUser, Content: []AnthropicBlock{{Type: "text", Text: ContinuationText}}}
		out.Messages = append([]AnthropicMessage{first}, out.Messages...)
	}
	trimFinalAssistant(out.Messages)
	return out
}

// anthropicBlocks is the turn role and content blocks of one non-system
// message.
func anthropicBlocks(m Message) (string, []AnthropicBlock) {
	if m.Role == RoleTool {
		return RoleUser, []AnthropicBlock{{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content}}
	}
	var blocks []AnthropicBlock
	if strings.TrimSpace(m.Content) != "" {
		blocks = append(blocks, AnthropicBlock{Type: "text", Text: m.Content})
	}
	for _, tc := range m.ToolCalls {
		blocks = append(blocks, AnthropicBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: toolInput(tc.Arguments)})
	}
	return m.Role, blocks
}

// pairTools turns a tool_use block whose result is not in the next turn
// (when there is a next turn), and a tool_result block whose call is not in
// the turn before, into text.
func pairTools(turns []AnthropicMessage) {
	for i := range turns {
		blocks := turns[i].Content
		switch {
		case turns[i].Role == RoleAssistant && i+1 < len(turns):
			results := toolIDs(turns[i+1], "tool_result")
			for j, b := range blocks {
				if b.Type == "tool_use" && !results[b.ID] {
					blocks[j] = AnthropicBlock{Type: "text", Text: fmt.Sprintf("(tool call %s: %s %s, no result)", b.ID, b.Name, b.Input)}
				}
			}
		case turns[i].Role == RoleUser:
			var calls map[string]bool
			if i > 0 {
				calls = toolIDs(turns[i-1], "tool_use")
			}
			for j, b := range blocks {
				if b.Type == "tool_result" && !calls[b.ToolUseID] {
					blocks[j] = AnthropicBlock{Type: "text", Text: fmt.Sprintf("(result of tool call %s) %s", b.ToolUseID, b.Content)}
				}
			}
		}
	}
}

// toolIDs is the set of tool call ids of a turn's blocks of one type.
func toolIDs(turn AnthropicMessage, typ string) map[string]bool {
	set := map[string]bool{}
	for _, b := range turn.Content {
		switch {
		case b.Type == typ && typ == "tool_use":
			set[b.ID] = true
		case b.Type == typ && typ == "tool_result":
			set[b.ToolUseID] = true
		}
	}
	return set
}

// toolResultsFirst moves a user turn's tool_result blocks before its other
// blocks, keeping the order within each kind: the API wants them first.
func toolResultsFirst(blocks []AnthropicBlock) {
	slices.SortStableFunc(blocks, func(a, b AnthropicBlock) int {
		return cmp.Compare(rankToolResult(a), rankToolResult(b))
	})
}

func rankToolResult(b AnthropicBlock) int {
	if b.Type == "tool_result" {
		return 0
	}
	return 1
}

// trimFinalAssistant trims trailing white space from a final assistant
// turn's last text block (the API refuses it there; blank blocks were left
// out already, so something remains).
func trimFinalAssistant(turns []AnthropicMessage) {
	n := len(turns)
	if n == 0 || turns[n-1].Role != RoleAssistant {
		return
	}
	blocks := turns[n-1].Content
	last := &blocks[len(blocks)-1]
	if last.Type == "text" {
		last.Text = strings.TrimRightFunc(last.Text, unicode.IsSpace)
	}
}

// Text renders messages for reading: "role: content" blocks separated by
// blank lines, tool calls and results marked.
func Text(msgs []Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteString("\n")
		}
		label := m.Role
		if m.Name != "" {
			label += " (" + m.Name + ")"
		}
		if m.ToolCallID != "" {
			label += " [" + m.ToolCallID + "]"
		}
		if m.Content == "" {
			fmt.Fprintf(&b, "%s:\n", label)
		} else {
			fmt.Fprintf(&b, "%s: %s\n", label, m.Content)
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "  -> %s %s(%s)\n", tc.ID, tc.Name, tc.Arguments)
		}
	}
	return b.String()
}

// MarshalJSONTo writes m as its struct tags say, token by token: a
// compile's output is mostly these, and the reflective encoder spent a
// sixth of a cold compile of 10k messages on them. TestOpenAIMessageJSON
// holds it to the tags.
func (m OpenAIMessage) MarshalJSONTo(enc *jsontext.Encoder) error {
	var err error
	tok := func(t jsontext.Token) {
		if err == nil {
			err = enc.WriteToken(t)
		}
	}
	str := func(s string) { tok(jsontext.String(s)) }
	tok(jsontext.BeginObject)
	str("role")
	str(m.Role)
	str("content")
	if m.Content == nil {
		tok(jsontext.Null)
	} else {
		str(*m.Content)
	}
	if m.Name != "" {
		str("name")
		str(m.Name)
	}
	if m.ToolCallID != "" {
		str("tool_call_id")
		str(m.ToolCallID)
	}
	if len(m.ToolCalls) > 0 {
		str("tool_calls")
		tok(jsontext.BeginArray)
		for _, tc := range m.ToolCalls {
			tok(jsontext.BeginObject)
			str("id")
			str(tc.ID)
			str("type")
			str(tc.Type)
			str("function")
			tok(jsontext.BeginObject)
			str("name")
			str(tc.Function.Name)
			str("arguments")
			str(tc.Function.Arguments)
			tok(jsontext.EndObject)
			tok(jsontext.EndObject)
		}
		tok(jsontext.EndArray)
	}
	tok(jsontext.EndObject)
	return err
}

// AppendOpenAIJSON appends msgs as the JSON array the openai format
// prints, with indent per level ("" for compact): the bytes json.Marshal
// gives with jsontext.WithIndent(indent) and jsontext.AllowInvalidUTF8
// (TestAppendOpenAIJSON holds it to them), without the encoder's work per
// token. A cold compile's output is mostly this.
func AppendOpenAIJSON(dst []byte, msgs []OpenAIMessage, indent string) []byte {
	a := jsonAppender{b: dst, indent: indent}
	a.b = append(a.b, '[')
	for i := range msgs {
		a.sep(i, 1)
		a.message(&msgs[i], 1)
	}
	a.end(']', len(msgs) > 0, 0)
	return a.b
}

// WriteOpenAI writes the openai format of res as AppendOpenAIJSON lays out
// OpenAI(res.Messages), and a newline, without making that list: each
// message is shaped and written in turn through one small buffer, so the
// output of a long context never sits in memory whole. An empty context
// is ErrEmptyContext, as Render has it.
func WriteOpenAI(w io.Writer, res Result, indent string) error {
	if len(res.Messages) == 0 {
		return fmt.Errorf("tract %s: %w", res.Tract, ErrEmptyContext)
	}
	msgs := apiMessages(res.Messages)
	return writeJSONArray(w, len(msgs), indent, func(a *jsonAppender, i int) {
		om := openAIMessage(&msgs[i])
		a.message(&om, 1)
	})
}

// WriteOpenAIJSON writes what AppendOpenAIJSON appends, and a newline,
// through one small buffer.
func WriteOpenAIJSON(w io.Writer, msgs []OpenAIMessage, indent string) error {
	return writeJSONArray(w, len(msgs), indent, func(a *jsonAppender, i int) { a.message(&msgs[i], 1) })
}

// writeJSONArray writes an array of n elements, each appended by elem at
// depth 1, and a newline, flushing its buffer as it fills.
func writeJSONArray(w io.Writer, n int, indent string, elem func(a *jsonAppender, i int)) error {
	const flushAt = 32 << 10
	a := jsonAppender{b: make([]byte, 0, flushAt+4<<10), indent: indent}
	a.b = append(a.b, '[')
	for i := range n {
		a.sep(i, 1)
		elem(&a, i)
		if len(a.b) >= flushAt {
			if _, err := w.Write(a.b); err != nil {
				return err
			}
			a.b = a.b[:0]
		}
	}
	a.end(']', n > 0, 0)
	a.b = append(a.b, '\n')
	_, err := w.Write(a.b)
	return err
}

// jsonAppender appends JSON by hand, laid out as jsontext lays it out.
type jsonAppender struct {
	b      []byte
	indent string
}

// sep starts the i-th element or member at depth d.
func (a *jsonAppender) sep(i, d int) {
	if i > 0 {
		a.b = append(a.b, ',')
	}
	a.line(d)
}

func (a *jsonAppender) line(d int) {
	if a.indent == "" {
		return
	}
	a.b = append(a.b, '\n')
	for range d {
		a.b = append(a.b, a.indent...)
	}
}

// end closes an object or array at depth d.
func (a *jsonAppender) end(c byte, nonEmpty bool, d int) {
	if nonEmpty {
		a.line(d)
	}
	a.b = append(a.b, c)
}

// name starts the i-th member at depth d (names here need no escaping).
func (a *jsonAppender) name(i, d int, n string) {
	a.sep(i, d)
	a.b = append(a.b, '"')
	a.b = append(a.b, n...)
	a.b = append(a.b, '"', ':')
	if a.indent != "" {
		a.b = append(a.b, ' ')
	}
}

// str appends s quoted; invalid UTF-8 becomes U+FFFD, as
// jsontext.AllowInvalidUTF8 has it.
func (a *jsonAppender) str(s string) { a.b = appendQuote(a.b, s) }

// appendQuote is jsontext.AppendQuote's output for s (invalid UTF-8 as
// U+FFFD). Most text a context holds is printable ASCII with nothing to
// escape: that is found eight bytes at a time and copied as it is.
func appendQuote(dst []byte, s string) []byte {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q, b := x^(ones*'"'), x^(ones*'\\')
		// A byte ≥ 0x80, below 0x20, or a quote or backslash (zero after
		// the xor): the high bit of its lane is set.
		if (x|(x-ones*0x20)|(q-ones)&^q|(b-ones)&^b)&highs != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			dst, _ = jsontext.AppendQuote(dst, s)
			return dst
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

func (a *jsonAppender) message(m *OpenAIMessage, d int) {
	a.b = append(a.b, '{')
	a.name(0, d+1, "role")
	a.str(m.Role)
	a.name(1, d+1, "content")
	if m.Content == nil {
		a.b = append(a.b, "null"...)
	} else {
		a.str(*m.Content)
	}
	n := 2
	if m.Name != "" {
		a.name(n, d+1, "name")
		a.str(m.Name)
		n++
	}
	if m.ToolCallID != "" {
		a.name(n, d+1, "tool_call_id")
		a.str(m.ToolCallID)
		n++
	}
	if len(m.ToolCalls) > 0 {
		a.name(n, d+1, "tool_calls")
		a.b = append(a.b, '[')
		for j := range m.ToolCalls {
			tc := &m.ToolCalls[j]
			a.sep(j, d+2)
			a.b = append(a.b, '{')
			a.name(0, d+3, "id")
			a.str(tc.ID)
			a.name(1, d+3, "type")
			a.str(tc.Type)
			a.name(2, d+3, "function")
			a.b = append(a.b, '{')
			a.name(0, d+4, "name")
			a.str(tc.Function.Name)
			a.name(1, d+4, "arguments")
			a.str(tc.Function.Arguments)
			a.end('}', true, d+3)
			a.end('}', true, d+2)
		}
		a.end(']', true, d+1)
	}
	a.end('}', true, d)
}
