package canon

import (
	"testing"
)

func TestCanonicalize(t *testing.T) {
	tests := []struct{ in, want string }{
		// RFC 8785 §3.2.3 sorting by UTF-16 code units and number forms.
		{`{"b": 1, "a": [1.0, 2e1, -0, "\u00e9"]}`, `{"a":[1,20,0,"é"],"b":1}`},
		{`{"\u20ac":1,"\r":2,"1":3}`, `{"\r":2,"1":3,"€":1}`},
		{`"</script>"`, `"</script>"`},
		{` [ ] `, `[]`},
	}
	for _, tt := range tests {
		got, err := Canonicalize([]byte(tt.in))
		if err != nil {
			t.Fatalf("Canonicalize(%s): %v", tt.in, err)
		}
		if string(got) != tt.want {
			t.Errorf("Canonicalize(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{`{"a":1,"a":2}`, `{`, `01`} {
		if _, err := Canonicalize([]byte(bad)); err == nil {
			t.Errorf("Canonicalize(%s) accepted invalid input", bad)
		}
	}
}

func TestSHA256IgnoresKeyOrder(t *testing.T) {
	a, err := SHA256(map[string]any{"x": 1, "y": []string{"p"}})
	if err != nil {
		t.Fatal(err)
	}
	type s struct {
		Y []string `json:"y"`
		X int      `json:"x"`
	}
	b, _ := SHA256(s{Y: []string{"p"}, X: 1})
	if a != b || len(a) != 64 {
		t.Fatalf("hashes differ or malformed: %s %s", a, b)
	}
	c, _ := SHA256(map[string]any{"x": 2, "y": []string{"p"}})
	if a == c {
		t.Fatal("different values hash alike")
	}
}
