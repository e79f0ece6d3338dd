package triad

import (
	"slices"
	"testing"
)

func TestLines(t *testing.T) {
	doc := []byte(`{
  "title": "a",
  "persona": {
    "title": "b",
    "title": "c"
  },
  "entries": [
    {"x": 1},
    {
      "a/b": [1,
        2]
    }
  ],
  "~k": null
}`)
	tests := []struct {
		ptr  string
		want []int
	}{
		{"", []int{1}},
		{"/title", []int{2}},
		{"/persona/title", []int{4, 5}},
		{"/entries/0", []int{8}},
		{"/entries/1/a~1b", []int{10}},
		{"/entries/1/a~1b/1", []int{11}},
		{"/~0k", []int{14}},
		{"/missing", nil},
		{"/entries/7", nil},
		{"/title/x", nil},
	}
	for _, tt := range tests {
		if got := Lines(doc, tt.ptr); !slices.Equal(got, tt.want) {
			t.Errorf("Lines(%q) = %v, want %v", tt.ptr, got, tt.want)
		}
	}
	if got := Lines([]byte(`{"a": [1, `), "/a/1"); got != nil {
		t.Errorf("truncated: %v", got)
	}
}

// Lines never panics and finds, for every member Decode sees, a line.
func FuzzLines(f *testing.F) {
	f.Add([]byte(`{"a": {"b": [1, {"c": 2}]}, "a": 3}`), "/a/b/1/c")
	f.Add([]byte("[\n\"x\",\n{\"~/\": 1}\n]"), "/1/~0~1")
	f.Add([]byte(`{"a": `), "/a")
	f.Fuzz(func(t *testing.T, data []byte, ptr string) {
		lines := Lines(data, ptr)
		v, err := Decode("f", data)
		if err != nil || ptr == "" {
			return
		}
		if v.Kind == Object && len(v.Members) > 0 {
			k := "/" + escapePointer(v.Members[0].Key)
			if len(Lines(data, k)) == 0 {
				t.Fatalf("no line for %q in %q", k, data)
			}
		}
		for _, l := range lines {
			if l < 1 {
				t.Fatalf("line %d", l)
			}
		}
	})
}
