package frontmatter

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

type skill struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Paths       []string `yaml:"paths"`
}

func TestSplit(t *testing.T) {
	cases := []struct {
		name, in       string
		yaml, body     string
		bodyLine       int
		ok             bool
		wantErrLine    int
		wantErrMessage string
	}{
		{name: "none", in: "# Title\n---\n", body: "# Title\n---\n", bodyLine: 1},
		{name: "empty file", in: "", body: "", bodyLine: 1},
		{name: "plain", in: "---\nname: a\n---\nbody\n", yaml: "name: a\n", body: "body\n", bodyLine: 4, ok: true},
		{name: "crlf", in: "---\r\nname: a\r\n---\r\nbody\r\n", yaml: "name: a\r\n", body: "body\r\n", bodyLine: 4, ok: true},
		{name: "bom and dots", in: "\ufeff---\nname: a\n...\nbody", yaml: "name: a\n", body: "body", bodyLine: 4, ok: true},
		{name: "empty block", in: "---\n---\n", yaml: "", body: "", bodyLine: 3, ok: true},
		{name: "trailing blanks on delimiters", in: "--- \nk: v\n---\t\nb", yaml: "k: v\n", body: "b", bodyLine: 4, ok: true},
		{name: "dots do not open", in: "...\nk: v\n...\n", body: "...\nk: v\n...\n", bodyLine: 1},
		{name: "unclosed", in: "---\nname: a\nbody\n", ok: true, wantErrLine: 1, wantErrMessage: "line 1: front matter: front matter opened by --- is never closed"},
		{name: "four dashes are a rule", in: "----\nx\n", body: "----\nx\n", bodyLine: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			y, body, line, ok, err := Split([]byte(c.in))
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if c.wantErrMessage != "" {
				var fe *Error
				if !errors.As(err, &fe) || fe.Line != c.wantErrLine || err.Error() != c.wantErrMessage {
					t.Fatalf("err = %v, want %q", err, c.wantErrMessage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(y) != c.yaml || string(body) != c.body || line != c.bodyLine {
				t.Fatalf("got (%q, %q, %d), want (%q, %q, %d)", y, body, line, c.yaml, c.body, c.bodyLine)
			}
		})
	}
}

func TestSplitRefusesHugeBlock(t *testing.T) {
	in := "---\n" + strings.Repeat("k: v\n", MaxBytes/4) + "---\n"
	_, _, _, _, err := Split([]byte(in))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v, want a size error", err)
	}
}

func TestDecode(t *testing.T) {
	var s skill
	body, ok, err := Decode([]byte("---\nname: pdf\ndescription: Fill PDF forms.\npaths:\n  - \"src/**/*.go\"\n---\n# PDF\n"), &s, false)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	want := skill{Name: "pdf", Description: "Fill PDF forms.", Paths: []string{"src/**/*.go"}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Fatal(diff)
	}
	if string(body) != "# PDF\n" {
		t.Fatalf("body %q", body)
	}
}

func TestDecodeErrorsNameTheFileLine(t *testing.T) {
	cases := []struct {
		in     string
		strict bool
		want   string
	}{
		// "name: [" opens a flow sequence that never closes.
		{in: "---\nname: ok\ndescription: [\n---\n", want: "line 3: front matter:"},
		{in: "---\nname: ok\nbogus: 1\n---\n", strict: true, want: "line 3: front matter: field bogus not found"},
		{in: "---\nname: [a, b]\n---\n", want: "line 2: front matter: cannot unmarshal !!seq into string"},
	}
	for _, c := range cases {
		var s skill
		_, _, err := Decode([]byte(c.in), &s, c.strict)
		var fe *Error
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Decode(%q) err = %v, want prefix %q", c.in, err, c.want)
		}
	}
}

func TestDecodeWithoutFrontMatterLeavesValue(t *testing.T) {
	s := skill{Name: "kept"}
	body, ok, err := Decode([]byte("# no front matter\n"), &s, true)
	if err != nil || ok || s.Name != "kept" || string(body) != "# no front matter\n" {
		t.Fatal(body, ok, err, s)
	}
}

func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		"---\nname: a\n---\nbody", "---\r\nname: a\r\n...\r\n", "\ufeff---\n---\n", "---\n&a [*a]\n---\n",
		"---\nname: [\n---\n", "no front matter", "---\nk: v", "---\na: &x {b: *x}\n---\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		yamlText, body, line, ok, err := Split(data)
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) || fe.Line < 1 {
				t.Fatalf("split error without a line: %v", err)
			}
			return
		}
		if !ok {
			if string(body) != string(data) {
				t.Fatal("no front matter must return data as the body")
			}
			return
		}
		if len(yamlText)+len(body) > len(data) || line < 3 {
			t.Fatalf("split lengths/line wrong: %d+%d of %d, line %d", len(yamlText), len(body), len(data), line)
		}
		var m map[string]any
		if _, _, err := Decode(data, &m, false); err != nil {
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("decode error of type %T", err)
			}
			if utf8.ValidString(fe.Msg) && strings.HasPrefix(fe.Msg, "yaml:") {
				t.Fatalf("library prefix left in %q", fe.Msg)
			}
		}
	})
}

func ExampleDecode() {
	var meta struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}
	body, _, err := Decode([]byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF skill\n"), &meta, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s\n%s", meta.Name, meta.Description, body)
	// Output:
	// pdf: Fill PDF forms.
	// # PDF skill
}

func TestFields(t *testing.T) {
	in := "---\nname: a\n# comment\ndescription: >-\n  two\n  lines\nmetadata:\n  v: 1\n---\nbody\n"
	fs, body, line, ok, err := Fields([]byte(in))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	got := fmt.Sprint(fs)
	if want := "[{name 2 a} {description 4 two lines} {metadata 7 map[v:1]}]"; got != want || string(body) != "body\n" || line != 10 {
		t.Errorf("got %s %q %d, want %s", got, body, line, want)
	}
	for in, want := range map[string]string{
		"---\n- a\n---\n":              "line 2: front matter: not a mapping of keys to values",
		"---\nname: a\nname: b\n---\n": "line 3: front matter: key name given twice",
		"---\nname: [a\n---\n":         "line 2: front matter: did not find expected ',' or ']'",
	} {
		if _, _, _, _, err := Fields([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("%q: err = %v, want %s", in, err, want)
		}
	}
}
