package canon

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// slowCanonical is Canonicalize without the check: a full parse and write.
func slowCanonical(b []byte) ([]byte, error) {
	v := jsontext.Value(append([]byte(nil), b...))
	err := v.Canonicalize()
	return v, err
}

var checkSeeds = []string{
	`{}`, `[]`, `0`, `-1`, `123456789012345`, `1234567890123456`, `-0`, `01`, `1.5`, `1e3`, `true`, `null`, `false`,
	`"a"`, `"\u001f"`, `"\u001F"`, `"\u000a"`, `"\n"`, `"\/"`, `"é"`, `"\u00e9"`, "\"\xff\"", `"\u2028"`, "\"\u2028\"", "\"\x7f\"",
	`{"a":1,"b":[true,null,{"c":"d"}]}`, `{"b":1,"a":2}`, `{"a":1,"a":2}`, `{"a":1,"ab":2}`, `{"é":1}`, `{"\u0061":1}`,
	`{"a": 1}`, ` {}`, `{}x`, `[1,]`, `{"a":}`, `"abc`, `[[[[]]]]`, `{"calls":["x"],"harness":"claude","keys":["k"]}`,
}

// TestIsCanonicalIsExact: every text IsCanonical accepts is its own
// canonical form, and the cases it must accept for the fast path to pay
// are accepted.
func TestIsCanonicalIsExact(t *testing.T) {
	for _, s := range checkSeeds {
		checkOne(t, []byte(s))
	}
	for _, s := range []string{`{"a":1,"b":[true,null,{"c":"d"}]}`, `"\u001f"`, `-12`, `{"harness":"claude","keys":["a\"b\\c\n"],"turn":{"input":100}}`} {
		if !IsCanonical([]byte(s)) {
			t.Errorf("IsCanonical(%s) = false, want true", s)
		}
	}
	for _, s := range []string{`{"b":1,"a":2}`, `{"a":1,"a":2}`, `-0`, `1.0`, `"\u000a"`, `"\u001F"`, `{"a": 1}`, "\"\xff\""} {
		if IsCanonical([]byte(s)) {
			t.Errorf("IsCanonical(%s) = true, want false", s)
		}
	}
}

func checkOne(t *testing.T, b []byte) {
	t.Helper()
	if !IsCanonical(b) {
		return
	}
	want, err := slowCanonical(b)
	if err != nil {
		t.Fatalf("IsCanonical(%q) = true, but it does not canonicalize: %v", b, err)
	}
	if !bytes.Equal(want, b) {
		t.Fatalf("IsCanonical(%q) = true, but its canonical form is %q", b, want)
	}
	got, err := Canonicalize(b)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Canonicalize(%q) = %q, %v; want %q", b, got, err, want)
	}
}

func FuzzIsCanonical(f *testing.F) {
	for _, s := range checkSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkOne(t, b)
		// The canonical form of anything valid is the fast path's whenever
		// it is within the subset; either way Canonicalize agrees with the
		// full path.
		want, werr := slowCanonical(b)
		got, gerr := Canonicalize(b)
		if (werr == nil) != (gerr == nil) || (werr == nil && !bytes.Equal(got, want)) {
			t.Fatalf("Canonicalize(%q) = %q, %v; the full path gives %q, %v", b, got, gerr, want, werr)
		}
	})
}
