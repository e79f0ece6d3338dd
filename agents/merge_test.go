package agents

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Same-title sections meet across contexts and through inherits: matched
// sections merge their items, so a local section never empties an
// inherited one, and a local empty section removes nothing.
func TestSectionsMergeAcrossLayers(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"across contexts", map[string]string{
			".clia/agents/s/s@ws.agent.triad.json":      `{"sections":[{"title":"Policy","items":["no-force-push","sign"]}]}`,
			"sub/.clia/agents/s/s@sub.agent.triad.json": `{"sections":[{"title":"Policy","items":["sign"]}]}`,
		}, `"sections":[{"items":["no-force-push","sign"],"title":"Policy"}]`},
		{"through inherits", map[string]string{
			"root.agent.json": `{"sections":[{"title":"Policy","items":["no-force-push","sign"]}]}`,
			"sub/.clia/agents/s/s@sub.agent.triad.json": `{"inherits":["root.agent.json"],"sections":[{"title":"Policy","items":[]}]}`,
		}, `"sections":[{"items":["no-force-push","sign"],"title":"Policy"}]`},
		{"local adds an item", map[string]string{
			".clia/agents/s/s@ws.agent.triad.json":      `{"sections":[{"title":"Policy","items":["no-force-push"]}]}`,
			"sub/.clia/agents/s/s@sub.agent.triad.json": `{"sections":[{"title":"Policy","items":["sign"]},{"title":"Policy","items":["x"]}]}`,
		}, `"sections":[{"items":["no-force-push"],"title":"Policy"},{"items":["sign"],"title":"Policy"},{"items":["x"],"title":"Policy"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tempRoot(t)
			tt.files[".git"] = "<dir>"
			tree(t, root, tt.files)
			p, err := BuildProfile(Options{Path: filepath.Join(root, "sub")}, "s", triad.Agent)
			if err != nil {
				t.Fatal(err)
			}
			got := string(triad.Encode(p.Merged, triad.EncodeOptions{Compact: true, SortKeys: true}))
			if !strings.Contains(got, tt.want) {
				t.Errorf("merged %s, want %s", got, tt.want)
			}
		})
	}
}

// A local extensions holding only inherits consumes them and keeps the
// ancestor's extensions (its journalSignature).
func TestExtensionsInheritsKeepsAncestorExtensions(t *testing.T) {
	root := tempRoot(t)
	tree(t, root, map[string]string{
		".git":                                 "<dir>",
		".clia/agents/s/s@ws.agent.triad.json": `{"extensions":{"journalSignature":"-CL"}}`,
		"base.agent.json":                      `{"guardrails":["base"]}`,
		"sub/.clia/agents/s/s@sub.agent.triad.json": `{"extensions":{"inherits":["base.agent.json"]}}`,
	})
	got, _ := profileJSON(t, Options{Path: filepath.Join(root, "sub")}, "s", triad.Agent)
	if !strings.Contains(got, `"journalSignature": "-CL"`) || !strings.Contains(got, `"base"`) || strings.Contains(got, "inherits") {
		t.Errorf("profile =\n%s", got)
	}
}

// With enforceContainment false, a foreign root (a sibling of P) comes
// before P's own contexts whatever its name sorts as: P's purpose and the
// workspace's owner win over the sibling's.
func TestForeignRootsNeverOutrankOwnContexts(t *testing.T) {
	for _, mode := range []string{"hybrid", "explicit"} {
		for _, sibling := range []string{"b", "0"} {
			t.Run(mode+"/"+sibling, func(t *testing.T) {
				root := tempRoot(t)
				tree(t, root, map[string]string{
					".git":                                 "<dir>",
					".clia/agents/s/s@ws.agent.triad.json": `{"owner":"W","guardrails":["ws"]}`,
					"libs/" + sibling + "/.clia/agents/s/s@sib.agent.triad.json": `{"purpose":"B","owner":"B","guardrails":["sib"]}`,
					"libs/a/.clia/agents/s/s@a.agent.triad.json": `{"purpose":"A","rootChain":{"mode":"` + mode +
						`","roots":[{"kind":"path","path":"libs/` + sibling + `"}],"policy":{"enforceContainment":false}}}`,
				})
				ch, err := Resolve(Options{Path: filepath.Join(root, "libs/a")}, "s")
				if err != nil {
					t.Fatal(err)
				}
				wantChain := []string{"s@sib/injected (outside containment)", "s@ws/ancestor", "s@a/ancestor"}
				wantOwner := "W"
				if mode == "explicit" {
					wantChain = []string{"s@sib/injected (outside containment)", "s@a/ancestor"}
					wantOwner = "B"
				}
				if !equalStrings(prefixes(ch), wantChain) {
					t.Errorf("chain %v, want %v", prefixes(ch), wantChain)
				}
				m := ch.Profile(triad.Agent).Merged
				if m.Str("purpose") != "A" || m.Str("owner") != wantOwner || len(m.Get("guardrails").Items) != len(wantChain)-1 {
					t.Errorf("merged %s", triad.Canonical(m))
				}
			})
		}
	}
}

// --agents-root adds to .clia/agents, never replaces it; .clia/agents comes
// first, then the flags in order.
func TestAgentsRootsAreAdditive(t *testing.T) {
	root := tempRoot(t)
	tree(t, root, map[string]string{
		".git":                                   "<dir>",
		".clia/agents/s/s@clia.agent.triad.json": `{"title":"clia","guardrails":["clia"]}`,
		".wrkstrm/clia/agents/s/s@w.agent.triad.json": `{"title":"wrkstrm","guardrails":["wrkstrm"]}`,
	})
	for _, tt := range []struct {
		roots []string
		want  string
	}{
		{nil, `"guardrails":["clia"],"slug":"s","title":"clia"`},
		{[]string{".wrkstrm/clia/agents"}, `"guardrails":["clia","wrkstrm"],"slug":"s","title":"wrkstrm"`},
		{[]string{".wrkstrm/clia/agents", ".clia/agents/"}, `"guardrails":["clia","wrkstrm"],"slug":"s","title":"wrkstrm"`},
	} {
		opts := Options{Path: root, AgentsRoots: tt.roots}
		p, err := BuildProfile(opts, "s", triad.Agent)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(triad.Encode(p.Merged, triad.EncodeOptions{Compact: true, SortKeys: true})); got != "{"+tt.want+"}" {
			t.Errorf("roots %v: merged %s, want {%s}", tt.roots, got, tt.want)
		}
		if n := len(opts.Roots()); n != 1+min(len(tt.roots), 1) {
			t.Errorf("roots %v: Roots() = %v", tt.roots, opts.Roots())
		}
	}
}

// Lint flags exactly the active agents whose inheritance misses
// <workspace>/.clia/agents/root/: never the root document itself, never
// archived or draft agents, and inheriting some other file does not count.
func TestDoctorFlagsActiveAgentsMissingRootDirectives(t *testing.T) {
	root := tempRoot(t)
	tree(t, root, map[string]string{
		".git": "<dir>",
		".clia/agents/root/root@ws.agent-profile.agent.triad.json": `{"schemaVersion":"0.4.0","status":"active","guardrails":["log"]}`,
		"other.agent.json":                          `{"schemaVersion":"0.4.0"}`,
		"hop.agent.json":                            `{"schemaVersion":"0.4.0","inherits":[".clia/agents/root/root@ws.agent-profile.agent.triad.json"]}`,
		".clia/agents/none/n.agent.triad.json":      `{"schemaVersion":"0.4.0","status":"active"}`,
		".clia/agents/upper/u.agent.triad.json":     `{"schemaVersion":"0.4.0","status":" Active "}`,
		".clia/agents/other/o.agent.triad.json":     `{"schemaVersion":"0.4.0","status":"active","inherits":["other.agent.json"]}`,
		".clia/agents/direct/d.agent.triad.json":    `{"schemaVersion":"0.4.0","status":"active","inherits":[".clia/agents/root/root@ws.agent-profile.agent.triad.json"]}`,
		".clia/agents/hop/h.agent.triad.json":       `{"schemaVersion":"0.4.0","status":"active","extensions":{"inherits":["hop.agent.json"]}}`,
		".clia/agents/archived/a.agent.triad.json":  `{"schemaVersion":"0.4.0","status":"archived"}`,
		".clia/agents/draft/d.agent.triad.json":     `{"schemaVersion":"0.4.0","status":"draft"}`,
		".clia/agents/nostatus/n.agent.triad.json":  `{"schemaVersion":"0.4.0"}`,
		".clia/agents/inherited/i.agent.triad.json": `{"schemaVersion":"0.4.0","inherits":[".clia/agents/root/root@ws.agent-profile.agent.triad.json"]}`,
		"sub/.clia/agents/local/l.agent.triad.json": `{"schemaVersion":"0.4.0","status":"draft"}`,
		".clia/agents/local/l.agent.triad.json":     `{"schemaVersion":"0.4.0","status":"active"}`,
	})
	reports, err := Lint(Options{Path: root})
	if err != nil {
		t.Fatal(err)
	}
	var flagged []string
	for _, d := range reports {
		for _, w := range d.Warnings {
			if strings.Contains(w, "root directives document") {
				flagged = append(flagged, d.Slug)
				if !strings.Contains(w, filepath.Join(root, ".clia/agents/root")+string(filepath.Separator)) || !strings.HasPrefix(w, filepath.Join(root, ".clia/agents", d.Slug)) {
					t.Errorf("%s: message %q does not name the file and the root folder", d.Slug, w)
				}
			}
		}
		if d.Slug == "none" && d.Status != "degraded" {
			t.Errorf("none: status %s, want degraded", d.Status)
		}
	}
	// "local" is active at the workspace but draft in sub: only the
	// workspace's report flags it.
	if got := strings.Join(flagged, ","); got != "local,none,other,upper" {
		t.Errorf("flagged %s, want local,none,other,upper", got)
	}
}

// Agents roots are the same root when the OS says so: a trailing slash, the
// other separator, or (on Windows and macOS) other case never lists a
// context directory twice.
func TestAgentsRootsCompareAsTheOSDoes(t *testing.T) {
	same := []string{".clia/agents/", "./.clia/agents", filepath.FromSlash(".clia/agents")}
	if fsx.Host.FoldCase {
		same = append(same, ".CLIA/Agents")
	}
	for _, r := range same {
		if got := (Options{AgentsRoots: []string{r}}).Roots(); len(got) != 1 {
			t.Errorf("agents root %q: Roots() = %q, want the default alone", r, got)
		}
	}
	if !fsx.Host.FoldCase {
		if got := (Options{AgentsRoots: []string{".CLIA/agents"}}).Roots(); len(got) != 2 {
			t.Errorf("case-sensitive host: Roots() = %q, want two roots", got)
		}
	}
}
