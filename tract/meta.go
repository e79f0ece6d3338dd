package tract

import (
	"fmt"

	"github.com/agentlineage/lineage/internal/canon"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// MaxMetaBytes is the largest metadata object one commit carries.
const MaxMetaBytes = 64 << 10

// ParseMeta checks that raw is one JSON object (at most MaxMetaBytes, no
// duplicate member names) and returns it in canonical form (RFC 8785), the
// form a commit hashes and stores. An empty object is no metadata (nil).
func ParseMeta(raw []byte) (jsontext.Value, error) {
	if len(raw) > MaxMetaBytes {
		return nil, &ValidationError{Field: "meta", Reason: fmt.Sprintf("%d bytes, the limit is %d", len(raw), MaxMetaBytes)}
	}
	// Canonicalizing checks the syntax too: the separate checks below
	// run only to name what is wrong (one parse of a good object, not two:
	// a session import parses some 60,000).
	out, err := canon.Canonicalize(raw)
	if err != nil || len(out) == 0 || out[0] != '{' {
		v := jsontext.Value(raw)
		if !v.IsValid() {
			return nil, &ValidationError{Field: "meta", Value: clip(string(raw)), Reason: "not valid JSON (want one JSON object)"}
		}
		if v.Kind() != '{' {
			return nil, &ValidationError{Field: "meta", Value: clip(string(raw)), Reason: "not a JSON object"}
		}
		return nil, &ValidationError{Field: "meta", Value: clip(string(raw)), Reason: fmt.Sprint(err)}
	}
	if string(out) == "{}" {
		return nil, nil
	}
	return jsontext.Value(out), nil
}

// clip shortens a value quoted in an error message.
func clip(s string) string {
	const n = 60
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// metaMatches reports whether meta's member key holds want: a string equal
// to want, or any other JSON value whose canonical text equals want
// (42, true, null).
func metaMatches(meta jsontext.Value, key, want string) bool {
	if len(meta) == 0 {
		return false
	}
	var obj map[string]jsontext.Value
	if json.Unmarshal(meta, &obj) != nil {
		return false
	}
	val, ok := obj[key]
	if !ok {
		return false
	}
	if val.Kind() == '"' {
		var s string
		return json.Unmarshal(val, &s) == nil && s == want
	}
	return string(val) == want
}
