package journal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
)

func TestParseMixAndFocusDomain(t *testing.T) {
	m, err := ParseMix("code=5, design=2.50,doc")
	if err != nil || len(m) != 3 || m[0] != (MixItem{"code", "5"}) || m[1] != (MixItem{"design", "2.50"}) || m[2] != (MixItem{"doc", "1"}) {
		t.Fatalf("%+v %v", m, err)
	}
	for in, want := range map[string]string{"code=0": "non-positive weights: code=0", "=2": "empty type token", "code=x": "invalid weight for code: x", "code=1e": "invalid weight"} {
		if _, err := ParseMix(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	d, err := ParseFocusDomain("Swift Packages=swift.spm:0.5")
	if err != nil || d != (FocusDomain{"Swift Packages", "swift.spm", "0.5"}) {
		t.Fatalf("%+v %v", d, err)
	}
	for in, want := range map[string]string{"nolabel": "missing '='", "L=a b": "invalid identifier", "L=a:x": "invalid weight"} {
		if _, err := ParseFocusDomain(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

func FuzzParseMix(f *testing.F) {
	for _, s := range []string{"code=5,doc", "a=1.5", "=", ",,", "x=-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		items, err := ParseMix(s)
		if err != nil {
			return
		}
		for _, it := range items {
			if it.Type == "" || !validNumber(it.Weight) {
				t.Fatalf("accepted %q: %+v", s, items)
			}
		}
	})
}

// agents set changes only the edited members, in the file's own layout
// (" : ", key order, number texts); --merge updates keyed elements in
// place; a repeated edit writes nothing; a dry run writes nothing.
func TestSetAgentIsByteMinimalAndIdempotent(t *testing.T) {
	root := tempRoot(t)
	agent := ".clia/agents/s/s@x.agent.triad.json"
	write(t, root, map[string]string{".git": "<dir>", agent: `{
  "schemaVersion" : "0.4.0",
  "role" : "old",
  "contributionMix" : {
    "primary" : [
      {
        "type" : "code",
        "weight" : 5.0
      }
    ],
    "x-note" : "keep"
  },
  "focusDomains" : [
    {
      "identifier" : "swift",
      "label" : "Swift",
      "x-k" : 1
    }
  ]
}
`})
	opts := Options{Agents: agents.Options{Path: root}}
	primary, _ := ParseMix("design=2")
	d, _ := ParseFocusDomain("Swift Lang=swift:3")
	e := AgentEdit{Slug: "s", Fields: []FieldValue{{"role", "Reviewer"}, {"x-n", "[1,2]"}}, Primary: primary, Domains: []FocusDomain{d}, Merge: true}
	res, err := SetAgent(context.Background(), opts, e)
	before, _ := os.ReadFile(filepath.Join(root, agent))
	if err != nil || !res.Changed || res.Written || !strings.Contains(res.Diff, `+  "role" : "Reviewer",`) {
		t.Fatalf("dry run: %+v %v", res, err)
	}
	e.Write = true
	if res, err = SetAgent(context.Background(), opts, e); err != nil || !res.Written {
		t.Fatalf("write: %+v %v", res, err)
	}
	got, _ := os.ReadFile(filepath.Join(root, agent))
	want := `{
  "schemaVersion" : "0.4.0",
  "role" : "Reviewer",
  "contributionMix" : {
    "primary" : [
      {
        "type" : "code",
        "weight" : 5.0
      },
      {
        "type" : "design",
        "weight" : 2
      }
    ],
    "x-note" : "keep"
  },
  "focusDomains" : [
    {
      "identifier" : "swift",
      "label" : "Swift Lang",
      "x-k" : 1,
      "weight" : 3
    }
  ],
  "x-n" : [
    1,
    2
  ]
}
`
	if string(got) != want || string(before) == string(got) {
		t.Errorf("after set:\n%s", got)
	}
	if res, err = SetAgent(context.Background(), opts, e); err != nil || res.Changed || res.Written {
		t.Errorf("repeat: %+v %v", res, err)
	}
	// Without --merge the mix's lists are replaced (secondary dropped when
	// not given), its other keys kept.
	e = AgentEdit{Slug: "s", Primary: []MixItem{{"doc", "1"}}, Write: true}
	if _, err = SetAgent(context.Background(), opts, e); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(filepath.Join(root, agent))
	if !strings.Contains(string(got), `"type" : "doc"`) || strings.Contains(string(got), `"type" : "code"`) || !strings.Contains(string(got), `"x-note" : "keep"`) {
		t.Errorf("replace:\n%s", got)
	}
	if _, err := SetAgent(context.Background(), opts, AgentEdit{Slug: "nobody", Fields: []FieldValue{{"role", "x"}}}); err == nil || !strings.Contains(err.Error(), "no agent document for nobody") {
		t.Errorf("missing agent: %v", err)
	}
}
