package agents

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/triad"
)

func TestRequireProfileAndDocument(t *testing.T) {
	root := tempRoot(t)
	tree(t, root, map[string]string{
		".git":                                   "<dir>",
		".clia/agents/s/s@root.agent.triad.json": `{"schemaVersion":"0.4.0","slug":"s","guardrails":["g"]}`,
	})
	ch, err := Resolve(Options{Path: root}, "nobody")
	if err != nil {
		t.Fatal(err)
	}
	var nc *NoContextError
	if _, err := ch.RequireProfile(triad.Agent); !errors.As(err, &nc) || nc.Slug != "nobody" || nc.Path != root {
		t.Fatalf("a slug without contexts: %v, want a NoContextError", err)
	}
	ch, err = Resolve(Options{Path: root}, "s")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ch.RequireProfile(triad.Agent)
	if err != nil {
		t.Fatal(err)
	}
	// The file as the JSON document spells it (a Windows path's
	// backslashes escaped).
	file := strings.Trim(strconv.Quote(filepath.Join(root, ".clia/agents/s/s@root.agent.triad.json")), `"`)
	for _, tt := range []struct {
		o        DocumentOptions
		has, not []string
	}{
		{DocumentOptions{}, []string{`"guardrails": [`}, []string{"contextChain", "provenance"}},
		{DocumentOptions{ContextChain: true}, []string{`"contextChain": [`, `"prefix": "`}, []string{"provenance"}},
		{DocumentOptions{Explain: true}, []string{`"merged": {`, `"provenance": {`, file}, []string{"contextChain"}},
		{DocumentOptions{ContextChain: true, Explain: true}, []string{`"merged": {`, `"contextChain": [`, file}, nil},
	} {
		got := string(triad.Canonical(p.Document(tt.o)))
		for _, s := range tt.has {
			if !strings.Contains(got, s) {
				t.Errorf("%+v: no %q in\n%s", tt.o, s, got)
			}
		}
		for _, s := range tt.not {
			if strings.Contains(got, s) {
				t.Errorf("%+v: %q in\n%s", tt.o, s, got)
			}
		}
	}
}
