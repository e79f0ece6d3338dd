package sessions

import (
	"bytes"
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// lineDecoder decodes Claude transcript lines into claudeLine without
// json.Unmarshal's reflection: one pass over the line's tokens, the
// members it does not use skipped unread, the values every line repeats
// (the session id, cwd, version, a message's role and model) kept once.
// Whatever it does not handle exactly as json.Unmarshal would (a null, a
// value of another kind, a duplicate member, invalid UTF-8, a number that
// is not an integer) makes decode return false, and the caller decodes the
// line with json.Unmarshal: the result is always json.Unmarshal's
// (FuzzClaudeLineDecode holds the two to it).
type lineDecoder struct {
	dec  jsontext.Decoder
	seen map[string]string
}

// decode fills e (zero on entry) from data; false leaves e to be reset and
// decoded by json.Unmarshal.
func (d *lineDecoder) decode(data []byte, e *claudeLine) bool {
	d.dec.Reset(bytes.NewBuffer(data))
	if t, err := d.dec.ReadToken(); err != nil || t.Kind() != '{' {
		return false
	}
	for d.dec.PeekKind() != '}' {
		name, err := d.dec.ReadValue()
		if err != nil {
			return false
		}
		if !d.member(name, e) {
			return false
		}
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return false
	}
	_, err := d.dec.ReadToken()
	return err == io.EOF
}

// member decodes the value of the member named name (its quoted form).
func (d *lineDecoder) member(name jsontext.Value, e *claudeLine) bool {
	switch string(name) {
	case `"type"`:
		return d.str(&e.Type)
	case `"subtype"`:
		return d.str(&e.Subtype)
	case `"uuid"`:
		return d.str(&e.UUID)
	case `"parentUuid"`:
		return d.nullStr(&e.ParentUUID)
	case `"logicalParentUuid"`:
		return d.nullStr(&e.LogicalParentUUID)
	case `"sessionId"`:
		return d.str(&e.SessionID)
	case `"timestamp"`:
		return d.str(&e.Timestamp)
	case `"cwd"`:
		return d.str(&e.Cwd)
	case `"gitBranch"`:
		return d.str(&e.GitBranch)
	case `"version"`:
		return d.str(&e.Version)
	case `"isMeta"`:
		return d.bool(&e.IsMeta)
	case `"isCompactSummary"`:
		return d.bool(&e.IsCompactSummary)
	case `"isSidechain"`:
		return d.bool(&e.IsSidechain)
	case `"agentId"`:
		return d.str(&e.AgentID)
	case `"requestSessionId"`:
		return d.str(&e.RequestSessionID)
	case `"customTitle"`:
		return d.str(&e.CustomTitle)
	case `"message"`:
		if d.dec.PeekKind() != '{' {
			return false
		}
		e.Message = new(claudeMessage)
		return d.message(e.Message)
	case `"attachment"`:
		return d.raw(&e.Attachment)
	case `"rendered"`:
		return d.unmarshal(&e.Rendered)
	case `"compactMetadata"`:
		return d.unmarshal(&e.CompactMetadata)
	case `"forkedFrom"`:
		return d.unmarshal(&e.ForkedFrom)
	}
	return d.skip(name)
}

// skip skips the value of a member no field takes (json matches names
// exactly); an escaped name could spell one: json.Unmarshal decides.
func (d *lineDecoder) skip(name jsontext.Value) bool {
	return bytes.IndexByte(name, '\\') < 0 && d.dec.SkipValue() == nil
}

// message decodes a message object.
func (d *lineDecoder) message(m *claudeMessage) bool {
	if _, err := d.dec.ReadToken(); err != nil {
		return false
	}
	for d.dec.PeekKind() != '}' {
		name, err := d.dec.ReadValue()
		if err != nil {
			return false
		}
		ok := true
		switch string(name) {
		case `"id"`:
			ok = d.str(&m.ID)
		case `"role"`:
			ok = d.str(&m.Role)
		case `"model"`:
			ok = d.str(&m.Model)
		case `"content"`:
			ok = d.raw(&m.Content)
		case `"stop_reason"`:
			ok = d.nullStr(&m.StopReason)
		case `"usage"`:
			ok = d.unmarshal(&m.Usage)
		default:
			ok = d.skip(name)
		}
		if !ok {
			return false
		}
	}
	_, err := d.dec.ReadToken()
	return err == nil
}

// str decodes a string; a value every line repeats is kept once.
func (d *lineDecoder) str(s *string) bool {
	if d.dec.PeekKind() != '"' {
		return false
	}
	v, err := d.dec.ReadValue()
	if err != nil {
		return false
	}
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		u, err := jsontext.AppendUnquote(nil, v)
		if err != nil {
			return false
		}
		*s = string(u)
		return true
	}
	if len(body) > 64 {
		*s = string(body)
		return true
	}
	if k, ok := d.seen[string(body)]; ok {
		*s = k
		return true
	}
	*s = string(body)
	if d.seen == nil {
		d.seen = map[string]string{}
	}
	if len(d.seen) < 256 {
		d.seen[*s] = *s
	}
	return true
}

// nullStr decodes a string or null (the zero string, as json.Unmarshal
// leaves it).
func (d *lineDecoder) nullStr(s *string) bool {
	if d.dec.PeekKind() == 'n' {
		_, err := d.dec.ReadToken()
		return err == nil
	}
	return d.str(s)
}

func (d *lineDecoder) bool(b *bool) bool {
	switch d.dec.PeekKind() {
	case 't', 'f':
		t, err := d.dec.ReadToken()
		if err != nil {
			return false
		}
		*b = t.Bool()
		return true
	}
	return false
}

// raw copies an object, array, string or number (json.Unmarshal keeps a
// null as the value null: it decides that).
func (d *lineDecoder) raw(v *jsontext.Value) bool {
	if d.dec.PeekKind() == 'n' {
		return false
	}
	r, err := d.dec.ReadValue()
	if err != nil {
		return false
	}
	*v = clone(r)
	return true
}

// unmarshal decodes a rarer member with json.Unmarshal.
func (d *lineDecoder) unmarshal(v any) bool {
	r, err := d.dec.ReadValue()
	return err == nil && json.Unmarshal(r, v) == nil
}
