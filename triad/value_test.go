package triad

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestDecodeEncodeLossless(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b":1,"a":2}`, `{"b":1,"a":2}`},
		{`{"n":1.50,"e":1E+2,"z":-0,"big":123456789012345678901234567890}`, `{"n":1.50,"e":1E+2,"z":-0,"big":123456789012345678901234567890}`},
		{`{"a":1,"a":2}`, `{"a":1,"a":2}`},
		{`{"s":"a\/b \u00e9 \ud83d\ude00 <&>"}`, `{"s":"a/b é 😀 <&>"}`},
		{`[[],{},null,true,false,""]`, `[[],{},null,true,false,""]`},
		{` "x" `, `"x"`},
	}
	for _, tt := range tests {
		v, err := Decode("t.json", []byte(tt.in))
		if err != nil {
			t.Fatalf("Decode(%s): %v", tt.in, err)
		}
		if got := string(Encode(v, EncodeOptions{Compact: true})); got != tt.want {
			t.Errorf("Encode(Decode(%s)) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestCanonicalLayout(t *testing.T) {
	v, err := Decode("t", []byte(`{"z":{"b":[1,"a/b"],"a":{}},"a":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": [],\n  \"z\": {\n    \"a\": {},\n    \"b\": [\n      1,\n      \"a/b\"\n    ]\n  }\n}\n"
	if got := string(Canonical(v)); got != want {
		t.Errorf("Canonical =\n%s\nwant\n%s", got, want)
	}
}

func TestDecodeErrorsNameFileLineColumn(t *testing.T) {
	tests := []struct {
		in        string
		line, col int
	}{
		{"{\n  \"a\": 1,\n  \"b\" 2\n}", 3, 7},
		{"{\n  \"a\": [1, 2,]\n}", 2, 13},
		{"{\"é\": x}", 1, 7},
		{"{\"a\":1} extra", 1, 9},
		{"", 1, 1},
		{"{\n", 2, 1},
	}
	for _, tt := range tests {
		_, err := Decode("dir/x.agent.triad.json", []byte(tt.in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("Decode(%q) = %v, want a *SyntaxError", tt.in, err)
		}
		if se.Line != tt.line || se.Column != tt.col {
			t.Errorf("Decode(%q): line %d column %d, want %d:%d (%v)", tt.in, se.Line, se.Column, tt.line, tt.col, err)
		}
		if !strings.HasPrefix(err.Error(), "dir/x.agent.triad.json: line ") {
			t.Errorf("message %q does not start with the file", err)
		}
	}
}

func TestValueAccessors(t *testing.T) {
	v, _ := Decode("t", []byte(`{"a":"x","a":"y","b":1}`))
	if v.Str("a") != "y" || v.Str("b") != "" || v.Get("missing") != nil {
		t.Errorf("accessors: %q %q", v.Str("a"), v.Str("b"))
	}
	v.Set("a", NewString("z"))
	v.Set("c", NewNumber("2"))
	v.Delete("b")
	if got := string(Encode(v, EncodeOptions{Compact: true})); got != `{"a":"z","c":2}` {
		t.Errorf("after edits: %s", got)
	}
	c := v.Clone()
	c.Set("a", NewString("other"))
	if v.Str("a") != "z" || !Equal(v, v.Clone()) || Equal(v, c) {
		t.Error("Clone shares state or Equal is wrong")
	}
	for _, e := range []*Value{nil, {Kind: Null}, NewString("  ")} {
		if !e.IsEmpty() {
			t.Errorf("%v should be empty", e)
		}
	}
	for _, e := range []*Value{{Kind: Bool, Text: "false"}, NewNumber("0"), NewObject(), NewArray()} {
		if e.IsEmpty() {
			t.Errorf("%v should not be empty", e)
		}
	}
}

func TestSchemaWarning(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"schemaVersion":"0.4.0"}`, ""},
		{`{"$schemaVersion":"0.1.0"}`, ""},
		{`{"schemaVersion":"clia.triad.agent.v1.json"}`, ""},
		{`{"schemaVersion":"9.9.9"}`, `f: unknown schemaVersion "9.9.9"`},
		{`{}`, "f: no schemaVersion"},
	}
	for _, tt := range tests {
		v, _ := Decode("f", []byte(tt.in))
		if got := SchemaWarning("f", v); got != tt.want {
			t.Errorf("SchemaWarning(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `{"a":1,"a":2}`, `"\u00e9"`, `1e400`, `{`, `[1,]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode("fuzz", data)
		if err != nil && jsontext.Value(data).IsValid(jsontext.AllowDuplicateNames(true)) {
			t.Fatalf("valid JSON rejected: %v", err)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Column < 1 {
				t.Fatalf("error %v is not a positioned *SyntaxError", err)
			}
			return
		}
		for _, opts := range []EncodeOptions{{}, {Compact: true}, {SortKeys: true}, {SpaceBeforeColon: true, OpenEmpty: true}} {
			out := Encode(v, opts)
			w, err := Decode("again", out)
			if err != nil {
				t.Fatalf("re-decode of %q: %v", out, err)
			}
			if !opts.SortKeys && !Equal(v, w) {
				t.Fatalf("round trip changed the value:\n%q\n%q", data, out)
			}
		}
	})
}

// The unescaped fast path writes exactly what jsontext.AppendQuote writes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "a/b <&>", "é 😀", "tab\t", "q\"", `back\slash`, "\x7f", "\xff", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := jsontext.AppendQuote(nil, s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}
