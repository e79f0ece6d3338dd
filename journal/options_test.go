package journal

import (
	"strings"
	"testing"

	"github.com/agentlineage/lineage/triad"
)

func TestOptionsValidate(t *testing.T) {
	for _, ok := range []string{"", ScopeSubmodule, ScopeWorkspace, ScopeLocal} {
		if err := (Options{Scope: ok}).Validate(); err != nil {
			t.Errorf("scope %q: %v", ok, err)
		}
	}
	err := Options{Scope: "repo"}.Validate()
	if err == nil || err.Error() != `unknown scope "repo" (want submodule, workspace or local)` {
		t.Errorf("scope repo: %v", err)
	}
}

func TestResultDocument(t *testing.T) {
	entry := triad.NewObject()
	entry.Set("id", triad.NewString("e1"))
	got := string(triad.Encode(Result{File: "/r/x.json", Written: false, Entry: entry}.Document(), triad.EncodeOptions{}))
	for _, want := range []string{`"file": "/r/x.json"`, `"written": false`, `"id": "e1"`} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in %s", want, got)
		}
	}
	if strings.Index(got, `"file"`) > strings.Index(got, `"written"`) || strings.Index(got, `"written"`) > strings.Index(got, `"entry"`) {
		t.Errorf("keys out of order: %s", got)
	}
}
