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
