package tract

import (
	"strings"
	"testing"
)

// TestParseMeta: a good object comes back canonical (one parse), and each
// kind of bad input is named as it was when the syntax was checked apart.
func TestParseMeta(t *testing.T) {
	good := map[string]string{
		`{ "b": 1, "a": [1.0, "x"] }`: `{"a":[1,"x"],"b":1}`,
		`{"k":"v"}`:                   `{"k":"v"}`,
		` {} `:                        ``,
	}
	for in, want := range good {
		got, err := ParseMeta([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("ParseMeta(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	bad := map[string]string{
		`{`:                "not valid JSON (want one JSON object)",
		`{"a":1,"a":2}`:    "not valid JSON (want one JSON object)",
		`[1]`:              "not a JSON object",
		`"x"`:              "not a JSON object",
		"{\"a\":\"\xff\"}": "not valid JSON (want one JSON object)",
		``:                 "not valid JSON (want one JSON object)",
	}
	for in, want := range bad {
		_, err := ParseMeta([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMeta(%q) = %v, want an error saying %q", in, err, want)
		}
	}
}
