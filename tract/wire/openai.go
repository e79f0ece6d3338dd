package wire

import (
	"github.com/agentlineage/lineage/tract"
	"github.com/go-json-experiment/json/jsontext"
)

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
func OpenAI(msgs []tract.Message) []OpenAIMessage { return openAIIn(msgs, nil) }

// openAIIn is OpenAI in scratch's memory when given (see RenderIn).
func openAIIn(msgs []tract.Message, scratch *[]OpenAIMessage) []OpenAIMessage {
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
func openAIMessage(m *tract.Message) OpenAIMessage {
	om := OpenAIMessage{Role: m.Role, Content: &m.Content, Name: m.Name, ToolCallID: m.ToolCallID}
	if len(m.ToolCalls) > 0 && m.Content == "" {
		om.Content = nil
	}
	for _, tc := range m.ToolCalls {
		om.ToolCalls = append(om.ToolCalls, OpenAIToolCall{ID: tc.ID, Type: "function", Function: OpenAIFunction{Name: tc.Name, Arguments: tc.Arguments}})
	}
	return om
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
