package agents

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func rootChainTree(t *testing.T, rootChain string) (root, p string) {
	root = tempRoot(t)
	tree(t, root, map[string]string{
		".git":                                 "<dir>",
		".clia/agents/s/s@ws.agent.triad.json": `{"schemaVersion":"0.4.0","guardrails":["ws"]}`,
		"code/.clia/agents/s/s@code.agent.triad.json":         `{"schemaVersion":"0.4.0","guardrails":["code"]}`,
		"code/mono/.clia/agents/s/s@mono.agent.triad.json":    `{"schemaVersion":"0.4.0","guardrails":["mono"]}`,
		"other/.clia/agents/s/s@other.agent.triad.json":       `{"schemaVersion":"0.4.0","guardrails":["other"]}`,
		"code/mono/app/.clia/agents/s/s@app.agent.triad.json": `{"schemaVersion":"0.4.0","guardrails":["app"],"rootChain":` + rootChain + `}`,
	})
	return root, filepath.Join(root, "code/mono/app")
}

func prefixes(ch *Chain) []string {
	var out []string
	for _, c := range ch.Contexts {
		out = append(out, c.Prefix+"/"+c.Reason)
	}
	return out
}

func TestRootChainModes(t *testing.T) {
	tests := []struct {
		name, rc string
		mode     string
		want     []string
	}{
		{"absent policy is default", `{"mode":"default"}`, "default", []string{"s@ws/ancestor", "s@code/ancestor", "s@mono/ancestor", "s@app/ancestor"}},
		{"explicit keeps listed roots and the local context", `{"mode":"explicit","roots":[{"kind":"path","path":"code/mono"},{"kind":"path","path":"."}]}`, "explicit",
			[]string{"s@ws/injected", "s@mono/injected", "s@app/ancestor"}},
		{"hybrid without containment adds an outside root", `{"mode":"hybrid","roots":[{"kind":"path","path":"other"}],"policy":{"enforceContainment":false}}`, "hybrid",
			[]string{"s@other/injected (outside containment)", "s@ws/ancestor", "s@code/ancestor", "s@mono/ancestor", "s@app/ancestor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p := rootChainTree(t, tt.rc)
			ch, err := Resolve(Options{Path: p}, "s")
			if err != nil {
				t.Fatal(err)
			}
			if ch.Mode != tt.mode || !equalStrings(prefixes(ch), tt.want) {
				t.Errorf("mode %s chain %v, want %s %v", ch.Mode, prefixes(ch), tt.mode, tt.want)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRootChainContainment(t *testing.T) {
	_, p := rootChainTree(t, `{"mode":"hybrid","roots":[{"kind":"path","path":"other"}]}`)
	_, err := Resolve(Options{Path: p}, "s")
	var ce *ContainmentError
	if !errors.As(err, &ce) || ce.Root != "other" || !IsValidation(err) {
		t.Fatalf("err = %v, want a *ContainmentError naming other", err)
	}
	if msg := err.Error(); indexOf(msg, `"other"`) < 0 || indexOf(msg, "not reachable") < 0 {
		t.Errorf("message %q does not name the root and why", msg)
	}
}

func TestRootChainValidation(t *testing.T) {
	for _, rc := range []string{
		`{"mode":"sideways"}`,
		`{"mode":"explicit","roots":[{"kind":"url","path":"x"}]}`,
		`{"mode":"explicit","roots":[{"kind":"path"}]}`,
		`{"mode":"explicit","roots":"code"}`,
		`"explicit"`,
	} {
		_, p := rootChainTree(t, rc)
		_, err := Resolve(Options{Path: p}, "s")
		var ve *ValidationError
		if !errors.As(err, &ve) || !IsValidation(err) {
			t.Errorf("rootChain %s: err = %v, want a *ValidationError", rc, err)
		}
	}
}

func TestRootChainRootWithoutContextIsExplained(t *testing.T) {
	root, p := rootChainTree(t, `{"mode":"hybrid","roots":[{"kind":"path","path":"/nonexistent-root"},{"kind":"path","path":"code/mono/app/.."}],"policy":{"enforceContainment":false}}`)
	ch, err := Resolve(Options{Path: p}, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Excluded) != 1 || ch.Excluded[0].Dir != filepath.VolumeName(root)+filepath.FromSlash("/nonexistent-root") {
		t.Errorf("excluded = %v", ch.Excluded)
	}
	if len(ch.Injected) != 1 || ch.Injected[0].Dir != filepath.Join(root, "code/mono/.clia/agents/s") {
		t.Errorf("injected = %v", ch.Injected)
	}
	if len(ch.Contexts) != 4 {
		t.Errorf("hybrid duplicated a default context: %v", prefixes(ch))
	}
}

// A sibling submodule a rootChain injects with enforceContainment false is
// read on purpose: doctor does not report it as read "through a symlinked
// agent directory" (there is none), and the agent stays ok.
func TestInjectedForeignSiblingIsNotReportedAsSymlinked(t *testing.T) {
	root := tempRoot(t)
	tree(t, root, map[string]string{
		".git":        "<dir>",
		".gitmodules": "[submodule \"a\"]\n\tpath = libs/a\n[submodule \"b\"]\n\tpath = libs/b\n",
		"libs/a/.git": "gitdir: ../../.git/modules/a\n",
		"libs/b/.git": "gitdir: ../../.git/modules/b\n",
		"libs/b/.clia/agents/s/s@b.agent.triad.json": `{"schemaVersion":"0.4.0","guardrails":["sib"]}`,
		"libs/a/.clia/agents/s/s@a.agent.triad.json": `{"schemaVersion":"0.4.0","purpose":"A","rootChain":{"mode":"hybrid","roots":[{"kind":"path","path":"libs/b"}],"policy":{"enforceContainment":false}}}`,
	})
	d, err := Doctor(Options{Path: filepath.Join(root, "libs/a")}, "s")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range d.Warnings {
		if strings.Contains(w, "symlinked") || strings.Contains(w, "sibling") {
			t.Errorf("warning %q", w)
		}
	}
	if d.Status != "ok" {
		t.Errorf("status %s: %v %v", d.Status, d.Errors, d.Warnings)
	}
}

// The journal a killed migrate --write leaves at the workspace root is a
// doctor warning saying how to finish it.
func TestDoctorReportsAnInterruptedMigrate(t *testing.T) {
	root := tempRoot(t)
	tree(t, root, map[string]string{
		".git":                                 "<dir>",
		".clia/agents/s/s@ws.agent.triad.json": `{"schemaVersion":"0.4.0"}`,
		MigrateJournalName:                     `{"version":1,"steps":[]}`,
	})
	d, err := Doctor(Options{Path: root}, "s")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, MigrateJournalName) + ": a migrate --write was interrupted; run `lineage agents migrate --write` again to finish it"
	if len(d.Warnings) != 1 || d.Warnings[0] != want {
		t.Errorf("warnings %q, want %q", d.Warnings, want)
	}
}
