package agents_test

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/agentstest"
	"github.com/agentlineage/lineage/triad"
)

// For every agent of every corpus folder, seen from its own domain and
// with every agents root the corpus uses, and for every kind: every element
// of every source layer's arrays is in the merged view.
func TestCorpusMergeLosesNothing(t *testing.T) {
	checked, elements := 0, 0
	forEachCorpusAgent(t, func(folder string, h agents.AgentHome, ch *agents.Chain) {
		for _, k := range triad.Kinds {
			p := ch.Profile(k)
			for _, l := range p.Layers {
				elements += countElements(l.Doc)
			}
			if lost := agentstest.Lost(p.Layers, p.Merged); len(lost) > 0 {
				t.Errorf("%s %s %s: lost %d elements: %v", folder, h.Slug, k, len(lost), lost)
			}
			checked++
		}
	})
	if checked < 60 || elements < 1000 {
		t.Errorf("checked %d merges holding %d array elements; the corpus has more", checked, elements)
	}
}

// forEachCorpusAgent resolves every agent of every corpus folder from its
// own domain, with every agents root the corpus uses.
func forEachCorpusAgent(t *testing.T, fn func(folder string, h agents.AgentHome, ch *agents.Chain)) {
	t.Helper()
	root := agentstest.CorpusDir(t)
	for _, folder := range agentstest.Folders(t) {
		opts := agents.Options{Path: filepath.Join(root, folder), AgentsRoots: corpusRoots}
		homes, err := agents.FindAll(opts)
		if err != nil {
			t.Fatalf("%s: %v", folder, err)
		}
		for _, h := range homes {
			o := opts
			o.Path = h.Domain
			ch, err := agents.Resolve(o, h.Slug)
			if err != nil {
				t.Errorf("%s %s: %v", folder, h.Slug, err)
				continue
			}
			fn(folder, h, ch)
		}
	}
}

func countElements(v *triad.Value) int {
	n := len(v.Items)
	for _, it := range v.Items {
		n += countElements(it)
	}
	for _, m := range v.Members {
		n += countElements(m.Value)
	}
	return n
}

// The nested workspace's tau agenda reuses milestone ids and section slugs:
// seen from a submodule (tau merged over the superproject's context) the
// plan keeps all 42 milestones and both "next" sections, the 6-item "Next"
// included.
func TestNestedTauPlanKeepsEverything(t *testing.T) {
	root, subs := agentstest.Nested(t)
	for _, p := range []string{root, filepath.Join(root, subs[0])} {
		prof, err := agents.BuildProfile(agents.Options{Path: p}, "tau", triad.Agenda)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(prof.Merged.Get("milestones").Items); n != 42 {
			t.Errorf("from %s: %d milestones, want 42", p, n)
		}
		var next []string
		for _, s := range prof.Merged.Get("sections").Items {
			if s.Str("slug") == "next" {
				next = append(next, s.Str("title")+":"+strconv.Itoa(len(s.Get("items").Items)))
			}
		}
		if strings.Join(next, ",") != "Next:6,Imported — Public Libraries Steward: Next:3" {
			t.Errorf("from %s: next sections %v", p, next)
		}
	}
}

// Lint flags only active agents whose inheritance misses the root
// directives document: in the corpus, the three active agents (none of them
// reaches a .clia/agents/root/ document), and no draft agent.
func TestCorpusLintFlagsOnlyActiveAgents(t *testing.T) {
	root := agentstest.CorpusDir(t)
	var flagged []string
	drafts := 0
	for _, folder := range agentstest.Folders(t) {
		opts := agents.Options{Path: filepath.Join(root, folder), AgentsRoots: corpusRoots}
		reports, err := agents.Lint(opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range reports {
			prof, err := agents.BuildProfile(agents.Options{Path: d.Path, AgentsRoots: corpusRoots}, d.Slug, triad.Agent)
			if err != nil {
				t.Fatal(err)
			}
			status := prof.Merged.Str("status")
			if status == "draft" {
				drafts++
			}
			for _, w := range d.Warnings {
				if strings.Contains(w, "root directives document") {
					if !strings.EqualFold(status, "active") {
						t.Errorf("%s %s flagged with status %q", folder, d.Slug, status)
					}
					flagged = append(flagged, folder+" "+d.Slug)
				}
			}
		}
	}
	sort.Strings(flagged)
	want := "wrkstrm-finance__mono tau,wrkstrm-finance__mono@036432c+submodules tau,wrkstrm__google-ai-swift gemini"
	if strings.Join(flagged, ",") != want {
		t.Errorf("flagged %v, want %s", flagged, want)
	}
	if drafts < 20 {
		t.Errorf("%d draft agents seen; the corpus has more", drafts)
	}
}
