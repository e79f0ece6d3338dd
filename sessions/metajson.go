package sessions

import (
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// marshalMeta writes m as json.Marshal does (the same bytes:
// TestMarshalMetaIsJSONMarshal), without its reflection: one buffer,
// members in the order commitMeta lists them. A meta holding the
// harness's own JSON (Extra), or a string that is not valid UTF-8, goes
// through json.Marshal itself, which checks and formats them.
func marshalMeta(m *commitMeta) ([]byte, error) {
	if m.Extra != nil {
		return json.Marshal(m)
	}
	w := metaWriter{buf: make([]byte, 0, 256)}
	w.buf = append(w.buf, '{')
	if len(m.Calls) > 0 {
		w.name("calls")
		w.strings(m.Calls)
	}
	if c := m.Compaction; c != nil {
		w.name("compaction")
		w.buf = append(w.buf, '{')
		w.name("compressed")
		w.buf = strconv.AppendBool(w.buf, c.Compressed)
		if len(c.Kept) > 0 {
			w.name("kept")
			w.strings(c.Kept)
		}
		w.optString("to", c.To)
		w.optString("trigger", c.Trigger)
		w.end()
	}
	w.name("harness")
	w.string(string(m.Harness))
	if i := m.Image; i != nil {
		w.name("image")
		w.buf = append(w.buf, '{')
		w.name("mediaType")
		w.string(i.MediaType)
		w.optString("ref", i.Ref)
		w.name("sha256")
		w.string(i.SHA256)
		w.name("size")
		w.buf = strconv.AppendInt(w.buf, i.Size, 10)
		w.end()
	}
	if i := m.Injected; i != nil {
		w.name("injected")
		w.buf = append(w.buf, '{')
		w.name("lineage")
		w.buf = strconv.AppendBool(w.buf, i.Lineage)
		w.optString("name", i.Name)
		w.name("source")
		w.string(i.Source)
		w.end()
	}
	w.name("isError")
	w.buf = strconv.AppendBool(w.buf, m.IsError)
	w.name("keys")
	w.strings(m.Keys)
	w.name("kind")
	w.string(string(m.Kind))
	w.optString("parent", m.Parent)
	w.name("session")
	w.string(m.Session)
	w.optString("time", m.Time)
	w.int("truncated", int64(m.Truncated))
	if t := m.Turn; t != nil {
		w.name("turn")
		w.buf = append(w.buf, '{')
		w.int("cacheRead", t.CacheRead)
		w.int("cacheWrite", t.CacheWrite)
		w.int("input", t.Input)
		w.optString("model", t.Model)
		w.int("output", t.Output)
		w.optString("responseId", t.ResponseID)
		w.optString("stopReason", t.StopReason)
		w.end()
	}
	w.optString("type", m.Type)
	w.end()
	if w.err != nil {
		return json.Marshal(m)
	}
	return w.buf, nil
}

// metaWriter appends one JSON object's members; err is set by a string
// that is not valid UTF-8.
type metaWriter struct {
	buf []byte
	err error
}

// name writes a member's name (a constant of the ASCII letters only) and
// the comma before it unless it is the object's first.
func (w *metaWriter) name(n string) {
	if c := w.buf[len(w.buf)-1]; c != '{' {
		w.buf = append(w.buf, ',')
	}
	w.buf = append(w.buf, '"')
	w.buf = append(w.buf, n...)
	w.buf = append(w.buf, '"', ':')
}

func (w *metaWriter) end() { w.buf = append(w.buf, '}') }

func (w *metaWriter) string(s string) {
	var err error
	if w.buf, err = jsontext.AppendQuote(w.buf, s); err != nil && w.err == nil {
		w.err = err
	}
}

// strings writes a list of strings (nil is [], as json.Marshal writes it).
func (w *metaWriter) strings(ss []string) {
	w.buf = append(w.buf, '[')
	for i, s := range ss {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.string(s)
	}
	w.buf = append(w.buf, ']')
}

func (w *metaWriter) optString(n, s string) {
	if s != "" {
		w.name(n)
		w.string(s)
	}
}

// int writes an integer member: json's omitempty leaves a zero in (it
// omits only empty JSON values: "", null, [] and {}).
func (w *metaWriter) int(n string, v int64) {
	w.name(n)
	w.buf = strconv.AppendInt(w.buf, v, 10)
}
