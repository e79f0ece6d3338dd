package jsonc

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStandard(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{"{\n  // a comment\n  \"a\": [1, 2,],\n}", "{\n              \n  \"a\": [1, 2 ] \n}"},
		{"{/* x\ny */\"a\":\"//not a comment\"}", "{    \n    \"a\":\"//not a comment\"}"},
		{`{"a":"q\",/*","b":[3 , ]}`, `{"a":"q\",/*","b":[3   ]}`},
		{`["a,]"]`, `["a,]"]`},
	} {
		got, err := Standard([]byte(c.in))
		if err != nil {
			t.Errorf("Standard(%q): %v", c.in, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("Standard(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if !json.Valid(got) {
			t.Errorf("Standard(%q) = %q: not JSON", c.in, got)
		}
	}
}

func TestStandardRefusesAnOpenComment(t *testing.T) {
	_, err := Standard([]byte("{\n\"a\": 1 /* and then\n nothing"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want the line the comment opens on", err)
	}
}

// An error in the result is where it is in the file: the same offsets.
func TestStandardKeepsOffsets(t *testing.T) {
	in := "{\n // c\n \"a\": 1,\n \"b\": nope\n}"
	out, err := Standard([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	err = json.Unmarshal(out, &v)
	se, ok := err.(*json.SyntaxError)
	if !ok || in[se.Offset-1] != 'o' {
		t.Fatalf("err = %v; want a syntax error at the 'nope' of the input", err)
	}
}

func FuzzStandard(f *testing.F) {
	f.Add([]byte(`{"a": [1, 2,], /* c */ "b": "//"} // end`))
	f.Add([]byte(`"\\"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		in := string(b)
		out, err := Standard(b)
		if string(b) != in {
			t.Fatal("Standard changed its input")
		}
		if err != nil {
			return
		}
		if len(out) != len(b) {
			t.Fatalf("length %d, want %d", len(out), len(b))
		}
		if json.Valid(b) && string(out) != in {
			t.Fatalf("standard JSON %q came back as %q", b, out)
		}
	})
}
