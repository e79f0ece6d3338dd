package agents

import (
	"strings"
	"testing"
)

// The shipped list is CLIA's: 34 types, each name and synonym in any case
// standing for its type; a synonym never hides a type's own name.
func TestTypesSpec(t *testing.T) {
	s, err := ParseTypesSpec(allContributorsTypes)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.emoji) != 34 {
		t.Errorf("%d types", len(s.emoji))
	}
	for name, want := range map[string]string{"code": "code", "Coding": "code", " projectmanagement ": "projectManagement", "docs": "doc"} {
		if got, ok := s.Canonical(name); !ok || got != want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := s.Canonical("product"); ok {
		t.Error(`"product" is no All Contributors type`)
	}
	own, err := ParseTypesSpec([]byte(`{"types": {"a": {"synonyms": ["b"]}, "b": {"synonyms": ["a"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := own.Canonical("a"); a != "a" {
		t.Errorf("a → %q", a)
	}
	for _, bad := range []string{`{}`, `{"types": {}}`, `[1]`, `{"types": {"a": {"synonyms": "x"}}}`} {
		if _, err := ParseTypesSpec([]byte(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

func FuzzParseTypesSpec(f *testing.F) {
	f.Add([]byte(`{"types": {"code": {"emoji": "x", "synonyms": ["Coding", "CODE"]}}}`))
	f.Add(allContributorsTypes)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseTypesSpec(data)
		if err != nil {
			return
		}
		for k := range s.emoji {
			if got, ok := s.Canonical(strings.ToUpper(k)); !ok || !strings.EqualFold(got, k) {
				t.Fatalf("type %q → %q, %v", k, got, ok)
			}
		}
	})
}
