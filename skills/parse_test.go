package skills

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNameRules(t *testing.T) {
	for name, want := range map[string]string{
		"pdf-processing":        "",
		"données":               "", // lowercase letters of any script, as skills-ref allows
		"技能":                    "",
		"a1-b2":                 "",
		"PDF":                   `"PDF" must be lowercase`,
		"-pdf":                  "must not start or end with a hyphen",
		"pdf--x":                "must not contain two hyphens in a row",
		"pdf_x":                 `"pdf_x" may hold only letters, digits and hyphens`,
		"pdf x":                 `"pdf x" may hold only letters, digits and hyphens`,
		strings.Repeat("a", 65): "65 characters, the limit is 64",
		"  ":                    "must not be empty",
	} {
		got := strings.Join(nameProblems(name, name), "; ")
		if got != want {
			t.Errorf("%q: %q, want %q", name, got, want)
		}
	}
	if got := nameProblems("a", "b"); len(got) != 1 || got[0] != `"a" does not match its folder's name "b"` {
		t.Errorf("folder mismatch: %v", got)
	}
}

// The catalog takes what the standard's client guide says to take: it
// skips a file without front matter, with broken YAML, without a name or a
// description, and keeps (with warnings) one that only breaks a rule.
func TestParseLenient(t *testing.T) {
	for in, ok := range map[string]bool{
		skillMD("a", "d", "b"):                          true,
		skillMD("Wrong_Name", "d", "b"):                 true,
		"---\nname: a\ndescription: d\nextra: 1\n---\n": true,
		"no front matter":                               false,
		"---\nname: a\n---\nb":                          false,
		"---\ndescription: d\n---\nb":                   false,
		"---\nname: a\ndescription: \"\"\n---\n":        false,
		"---\nname: [a\ndescription: d\n---\n":          false,
		"---\nname: a\ndescription: d\n":                false,
		"---\nname: 3\ndescription: d\n---\n":           false,
	} {
		d, probs := parse("/s/a/SKILL.md", "a", []byte(in))
		if (d != nil) != ok {
			t.Errorf("%q: listed %v, want %v (%v)", in, d != nil, ok, probs)
		}
		if !ok && len(probs) == 0 {
			t.Errorf("%q: skipped without a reason", in)
		}
	}
}

func TestReferences(t *testing.T) {
	body := "See [a](references/a.md) and ![img](assets/x.png \"t\").\n" +
		"```\n[not](inside/fence.md)\n```\n" +
		"Run `scripts/run.sh`; not [web](https://x.y/z.md), [anchor](#top), [abs](/etc/x), [q](b.md?x=1#y).\n"
	var got []string
	for _, r := range references(body, 10) {
		got = append(got, r.target+"@"+string(rune('0'+r.line-10)))
	}
	want := "references/a.md@0,assets/x.png@0,b.md@4,scripts/run.sh@4"
	if strings.Join(got, ",") != want {
		t.Errorf("refs = %v, want %s", got, want)
	}
}

// For any bytes as a SKILL.md: parsing and checking never panic; every
// finding names the file and a line inside it (or none); a listed skill has
// a non-empty name and description; a file without front matter is never
// listed.
func FuzzParse(f *testing.F) {
	f.Add([]byte(skillMD("pdf", "Extract text.", "# Body\nSee [r](references/r.md).")))
	f.Add([]byte("---\nname: a\ndescription: >-\n  folded\n  text\nmetadata:\n  k: v\nallowed-tools: [Read, 3]\n---\n"))
	f.Add([]byte("---\r\nname: a\r\ndescription: d\r\n...\r\nbody"))
	f.Add([]byte("\ufeff---\nname: &x a\ndescription: *x\n---\n"))
	f.Add([]byte("---\nname: a\nname: b\n---\n"))
	f.Add([]byte("---\n- list\n---\n"))
	f.Add([]byte("---\nname: \xff\ndescription: d\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, probs := parse("/s/a/SKILL.md", "a", data)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, p := range probs {
			if p.Path != "/s/a/SKILL.md" || p.Line < 0 || p.Line > lines || p.Message == "" {
				t.Fatalf("finding %+v for a file of %d lines", p, lines)
			}
			if s := p.String(); strings.Contains(s, "\n") || !utf8.ValidString(s) {
				t.Fatalf("finding text %q", s)
			}
		}
		if d != nil {
			if strings.TrimSpace(d.name) == "" || strings.TrimSpace(d.description) == "" {
				t.Fatalf("listed without a name or description: %+v", d)
			}
			if !bytes.HasPrefix(bytes.TrimPrefix(data, []byte("\ufeff")), []byte("---")) {
				t.Fatalf("listed without front matter")
			}
			_ = references(d.rawBody, d.bodyLine)
		}
	})
}

// TestCheckFindings pins every finding check reports, in its order, with
// field and line.
func TestCheckFindings(t *testing.T) {
	long := strings.Repeat("x", 501)
	for _, tt := range []struct{ in, want string }{
		{"no front matter", "f:1: no front matter: a SKILL.md opens with --- and the keys name and description"},
		{"---\nname: [a\n---\n", "f:2: "},
		{"---\n---\n", "f:1: name: missing: the name is required|f:1: description: missing: the description is required"},
		{"---\nname: A_b\ndescription: \" \"\nextra: 1\n---\n",
			"f:4: extra: not a field of the Agent Skills specification (allowed-tools, compatibility, description, license, metadata, name)|" +
				`f:2: name: "A_b" must be lowercase|f:2: name: "A_b" may hold only letters, digits and hyphens|f:2: name: "A_b" does not match its folder's name "a"|` +
				"f:3: description: must not be empty"},
		{"---\nname: 3\ndescription: [d]\n---\n", "f:2: name: must be a string, got a number|f:3: description: must be a string, got a list"},
		{"---\nname: a\ndescription: d\ncompatibility: \" \"\n---\n", "f:4: compatibility: must not be empty when given"},
		{"---\nname: a\ndescription: d\ncompatibility: " + long + "\n---\n", "f:4: compatibility: 501 characters, the limit is 500"},
		{"---\nname: a\ndescription: d\ncompatibility: 1\nlicense: true\n---\n",
			"f:4: compatibility: must be a string, got a number|f:5: license: must be a string, got a boolean"},
		{"---\nname: a\ndescription: d\nmetadata: x\n---\n", "f:4: metadata: must be a mapping of strings to strings, got a string"},
		{"---\nname: a\ndescription: d\nmetadata:\n  z: 1\n  b: [x]\n  c: ok\n---\n",
			"f:4: metadata: b: must be a string, got a list (quote it)|f:4: metadata: z: must be a string, got a number (quote it)"},
		{"---\nname: a\ndescription: d\nallowed-tools: [Read, 3, true]\n---\n", "f:4: allowed-tools: every entry must be a string, got a number"},
		{"---\nname: a\ndescription: d\nallowed-tools: {a: b}\n---\n",
			"f:4: allowed-tools: must be a space-separated string or a list of strings, got a mapping"},
		{"---\nname: a\ndescription: d\nallowed-tools: Read Grep\nlicense: MIT\n---\n", ""},
	} {
		var got []string
		for _, p := range check("f", "a", []byte(tt.in)) {
			got = append(got, p.String())
		}
		g := strings.Join(got, "|")
		if tt.want == "f:2: " { // a YAML error: the line, whatever the parser's words
			if len(got) != 1 || !strings.HasPrefix(g, tt.want) {
				t.Errorf("%q: %s, want one finding on line 2", tt.in, g)
			}
			continue
		}
		if g != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.in, g, tt.want)
		}
	}
}
