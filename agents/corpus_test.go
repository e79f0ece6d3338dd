package agents_test

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/agentstest"
	"github.com/agentlineage/lineage/triad"
)

// corpusRoots are the agents roots seen in the corpus.
var corpusRoots = []string{".clia/agents", ".wrkstrm/clia/agents", "private/.wrkstrm/agents",
	"sources/core/clia-agent-core-cli-commands/resources/templates",
	"sources/core/clia-agent-core-cli-commands/Resources/templates"}

// profile succeeds, for every kind, for every slug found in every corpus
// folder.
func TestCorpusProfilesEverySlug(t *testing.T) {
	total := 0
	forEachCorpusAgent(t, func(folder string, h agents.AgentHome, ch *agents.Chain) {
		if ch.Empty() {
			t.Errorf("%s %s: no context", folder, h.Slug)
		}
		for _, k := range triad.Kinds {
			p := ch.Profile(k)
			if _, err := triad.Decode("merged", triad.Canonical(p.Merged)); err != nil {
				t.Errorf("%s %s %s: merged output is not JSON: %v", folder, h.Slug, k, err)
			}
		}
		if errs := ch.Report().Errors; len(errs) > 0 {
			t.Errorf("%s %s: errors %v", folder, h.Slug, errs)
		}
		total++
	})
	if total < 20 {
		t.Errorf("profiled %d agents; the corpus has more", total)
	}
}

// In the nested workspace two submodules share slugs; a context inside one
// never includes the other's agents.
func TestNestedWorkspaceExcludesSiblingSubmodules(t *testing.T) {
	root, subs := agentstest.Nested(t)
	if len(subs) != 2 {
		t.Fatalf("layout lists %d submodules", len(subs))
	}
	for i, sub := range subs {
		sibling := subs[1-i]
		for _, p := range []string{filepath.Join(root, sub), filepath.Join(root, sub, ".clia/agents/product-manager")} {
			for _, slug := range []string{"ios-engineer", "product-manager", "project-manager"} {
				ch, err := agents.Resolve(agents.Options{Path: p}, slug)
				if err != nil {
					t.Fatal(err)
				}
				if len(ch.Contexts) != 1 || !strings.HasPrefix(ch.Contexts[0].Dir, filepath.Join(root, sub)+string(filepath.Separator)) {
					t.Errorf("%s from %s: chain %v", slug, p, ch.Contexts)
				}
				for _, c := range ch.Contexts {
					if strings.HasPrefix(c.Dir, filepath.Join(root, sibling)) {
						t.Errorf("%s from %s includes the sibling's %s", slug, p, c.Dir)
					}
				}
				prof := ch.Profile(triad.Agent)
				for _, f := range prof.Provenance {
					if strings.HasPrefix(f, filepath.Join(root, sibling)) {
						t.Errorf("merged value from sibling file %s", f)
					}
				}
			}
		}
		// The superproject's agents are inherited by both submodules.
		ch, _ := agents.Resolve(agents.Options{Path: filepath.Join(root, sub)}, "tau")
		if len(ch.Contexts) != 1 || ch.Contexts[0].Domain != root {
			t.Errorf("tau from %s: %v", sub, ch.Contexts)
		}
	}
}

// The same tree written in different file-creation orders gives the same
// bytes for profile and context.
func TestOutputIndependentOfCreationOrder(t *testing.T) {
	files := map[string]string{
		".git":                                      "",
		".gitmodules":                               "[submodule \"s\"]\n\tpath = libs/s\n[submodule \"t\"]\n\tpath = libs/t\n",
		".clia/agents/a/z@ws.agent.triad.json":      `{"schemaVersion":"0.4.0","guardrails":["z"],"links":[{"title":"z"}]}`,
		".clia/agents/a/b@ws.agent.triad.json":      `{"schemaVersion":"0.4.0","guardrails":["b"],"links":[{"title":"b"}]}`,
		".clia/agents/a/a@ws.agent.json":            `{"schemaVersion":"0.4.0","guardrails":["legacy"]}`,
		".clia/agents/a/c@ws.agenda.json":           `{"schemaVersion":"0.4.0","milestones":[{"id":"m"}]}`,
		".wrkstrm/clia/agents/a/w.agent.triad.json": `{"schemaVersion":"0.4.0","guardrails":["w"]}`,
		"libs/s/.git":                               "gitdir: x",
		"libs/s/.clia/agents/a/s.agent.triad.json":  `{"schemaVersion":"0.4.0","guardrails":["s"],"inherits":["shared/p.agent.json","./q.agent.json"]}`,
		"libs/s/shared/p.agent.json":                `{"schemaVersion":"0.4.0","guardrails":["p"]}`,
		"libs/s/.clia/agents/a/q.agent.json":        `{"schemaVersion":"0.4.0","guardrails":["q"]}`,
		"libs/t/.git":                               "gitdir: y",
		"libs/t/.clia/agents/a/t.agent.triad.json":  `{"schemaVersion":"0.4.0","guardrails":["t"]}`,
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	var first []string
	for round := 0; round < 4; round++ {
		rng := rand.New(rand.NewSource(int64(round)))
		rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		root := t.TempDir()
		for _, n := range names {
			p := filepath.Join(root, n)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if n == ".git" {
				os.MkdirAll(p, 0o755)
				continue
			}
			if err := os.WriteFile(p, []byte(files[n]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		opts := agents.Options{Path: filepath.Join(root, "libs/s"), AgentsRoots: []string{".clia/agents", ".wrkstrm/clia/agents"}}
		ch, err := agents.Resolve(opts, "a")
		if err != nil {
			t.Fatal(err)
		}
		var outs []string
		for _, k := range triad.Kinds {
			p := ch.Profile(k)
			outs = append(outs, string(triad.Canonical(p.Explain(p.WithContextChain()))))
		}
		ctx := ""
		for _, c := range ch.Contexts {
			ctx += c.Prefix + " " + c.Dir + "\n"
		}
		outs = append(outs, ctx, strings.Join(ch.Report().Warnings, "\n"))
		for i := range outs {
			outs[i] = rootless(outs[i], root)
		}
		if round == 0 {
			first = outs
			if strings.Contains(outs[0], `"legacy"`) {
				t.Errorf("legacy agent document used although .triad.json files exist: %s", outs[0])
			}
			continue
		}
		for i := range outs {
			if outs[i] != first[i] {
				t.Fatalf("round %d output %d differs:\n%s\nvs\n%s", round, i, outs[i], first[i])
			}
		}
	}
	if !strings.Contains(first[0], `"b",`) || strings.Contains(first[0], `"z"`) || strings.Contains(first[0], `ROOT/libs/t/`) {
		t.Errorf("selection or sibling exclusion wrong:\n%s", first[0])
	}
}
