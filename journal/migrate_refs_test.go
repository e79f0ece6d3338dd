package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/triad"
)

// profiles maps "<slug> <kind>" to the canonical merged profile of every
// agent under ws, and "<slug> <kind> layers" to its layer count.
func profiles(t testing.TB, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	opts := agents.Options{Path: ws}
	homes, err := agents.FindAll(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range homes {
		for _, k := range triad.Kinds {
			p, err := agents.BuildProfile(agents.Options{Path: h.Domain}, h.Slug, k)
			if err != nil {
				t.Fatal(err)
			}
			key := h.Slug + " " + string(k)
			out[key] = string(triad.Canonical(p.Merged))
			out[key+" layers"] = fmt.Sprint(len(p.Layers))
		}
	}
	return out
}

// Seed B's root directives example under its legacy name: migrate renames
// it and rewrites every reference in the same run (shown in the dry run),
// so the merged guardrails keep the root's and doctor finds nothing
// missing; a second run changes nothing.
func TestMigrateRewritesReferencesToRenamedDocuments(t *testing.T) {
	root := tempRoot(t)
	legacy := ".clia/agents/root/root@todo3.agent-directives.agent.json"
	write(t, root, map[string]string{
		".git": "<dir>",
		legacy: `{"schemaVersion": "0.4.0", "guardrails": ["ROOT-RULE"]}`,
		".clia/agents/coder/coder@todo3.agent.triad.json":   `{"schemaVersion": "0.4.0", "role": "coder", "inherits": ["` + legacy + `"], "guardrails": ["L"]}`,
		".clia/agents/tester/tester@todo3.agent.triad.json": `{"schemaVersion": "0.4.0", "role": "tester", "extensions": {"inherits": ["../root/root@todo3.agent-directives.agent.json"]}}`,
		"AGENTS.md": "# Agents\n\nRoot directives: `" + legacy + "`.\n",
	})
	ctx := context.Background()
	opts := Options{Agents: agents.Options{Path: root}}
	before := profiles(t, root)
	if !strings.Contains(before["coder agent"], "ROOT-RULE") {
		t.Fatalf("the fixture does not inherit: %s", before["coder agent"])
	}

	dry, err := Migrate(ctx, opts, Tidy{Dir: "."})
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, r := range dry {
		if r.Written {
			t.Errorf("the dry run wrote %s", r.File)
		}
		if r.Changed {
			rel, _ := filepath.Rel(root, r.File)
			shown = append(shown, filepath.ToSlash(rel)+" "+strings.Join(r.References, "; "))
		}
	}
	want := []string{
		".clia/agents/coder/coder@todo3.agent.triad.json inherits \"" + legacy + "\" → \".clia/agents/root/root@todo3.agent-directives.agent.triad.json\"",
		".clia/agents/root/root@todo3.agent-directives.agent.triad.json ",
		".clia/agents/tester/tester@todo3.agent.triad.json inherits \"../root/root@todo3.agent-directives.agent.json\" → \"../root/root@todo3.agent-directives.agent.triad.json\"",
		"AGENTS.md " + legacy + " → .clia/agents/root/root@todo3.agent-directives.agent.triad.json",
	}
	if fmt.Sprint(sortStrings(shown)) != fmt.Sprint(want) {
		t.Errorf("dry run shows\n%s\nwant\n%s", strings.Join(sortStrings(shown), "\n"), strings.Join(want, "\n"))
	}
	if _, err := os.Stat(filepath.Join(root, legacy)); err != nil {
		t.Fatalf("the dry run moved the legacy file: %v", err)
	}

	if _, err := Migrate(ctx, opts, Tidy{Dir: ".", Write: true}); err != nil {
		t.Fatal(err)
	}
	after := profiles(t, root)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s: before %s\nafter %s", k, v, after[k])
		}
	}
	d, err := agents.Doctor(agents.Options{Path: root}, "coder")
	if err != nil || d.Status != "ok" {
		t.Errorf("doctor after migrate: %+v, %v", d, err)
	}
	roster, _ := os.ReadFile(filepath.Join(root, "AGENTS.md"))
	if !strings.Contains(string(roster), "root@todo3.agent-directives.agent.triad.json") {
		t.Errorf("AGENTS.md still names the legacy file: %s", roster)
	}
	again, err := Migrate(ctx, opts, Tidy{Dir: ".", Write: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again {
		if r.Changed {
			t.Errorf("a second run changes %s", r.File)
		}
	}
}

func sortStrings(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// For any tree of agents whose documents (under legacy or current names)
// inherit each other in every spelling CLIA allows, the merged profile of
// every agent and kind is the same before and after migrate --write, with
// the same number of layers: renaming never weakens a profile — also when
// plain JSON policies (policies/pN.json, not triads) in the chains name the
// renamed documents.
func TestPropertyMigrateNeverWeakensAProfile(t *testing.T) {
	slugs := []string{"root", "a", "b", "c"}
	rapid.Check(t, func(rt *rapid.T) {
		root := tempRoot(t)
		files := map[string]string{".git": "<dir>"}
		type doc struct{ slug, kind, name string }
		var docs []doc
		for _, s := range slugs {
			for _, k := range []string{"agent", "agenda"} {
				if !rapid.Bool().Draw(rt, "has "+s+k) {
					continue
				}
				name := s + "@ws." + k + ".json"
				if rapid.Bool().Draw(rt, "current "+s+k) {
					name = s + "@ws." + k + ".triad.json"
				}
				docs = append(docs, doc{s, k, name})
			}
		}
		// Plain JSON policies in the inherits chains: each inherits some
		// documents and is inherited by some (its references to renamed
		// documents must be rewritten too).
		nPolicies := rapid.IntRange(0, 2).Draw(rt, "policies")
		for pi := range nPolicies {
			var refs []string
			for j, o := range docs {
				if o.kind == "agent" && rapid.Bool().Draw(rt, fmt.Sprint("policy ", pi, j)) {
					ref := "../.clia/agents/" + o.slug + "/" + o.name
					if rapid.Bool().Draw(rt, fmt.Sprint("policy bare ", pi, j)) {
						ref = ".clia/agents/" + o.slug + "/" + o.name
					}
					refs = append(refs, strconv.Quote(ref))
				}
			}
			files[fmt.Sprintf("policies/p%d.json", pi)] = `{"guardrails": ["P` + fmt.Sprint(pi) + `"], "inherits": [` + strings.Join(refs, ", ") + `]}`
		}
		for i, d := range docs {
			body := `"schemaVersion": "0.4.0"`
			if d.kind == "agent" {
				body += `, "role": "` + d.slug + `", "guardrails": ["G-` + d.slug + `"]`
			} else {
				body += `, "milestones": [{"id": "near-1", "title": "M-` + d.slug + `"}]`
			}
			var top, ext []string
			for j, o := range docs {
				if j == i || o.kind != d.kind || !rapid.Bool().Draw(rt, fmt.Sprint("inherit ", i, j)) {
					continue
				}
				var ref string
				switch rapid.IntRange(0, 2).Draw(rt, fmt.Sprint("form ", i, j)) {
				case 0:
					ref = ".clia/agents/" + o.slug + "/" + o.name
				case 1:
					ref = "../" + o.slug + "/" + o.name
				default:
					ref = filepath.Join(root, ".clia/agents", o.slug, o.name)
				}
				if rapid.Bool().Draw(rt, fmt.Sprint("ext ", i, j)) {
					ext = append(ext, strconv.Quote(ref))
				} else {
					top = append(top, strconv.Quote(ref))
				}
			}
			for pi := range nPolicies {
				if d.kind == "agent" && rapid.Bool().Draw(rt, fmt.Sprint("uses policy ", i, pi)) {
					top = append(top, strconv.Quote(fmt.Sprintf("policies/p%d.json", pi)))
				}
			}
			if len(top) > 0 {
				body += `, "inherits": [` + strings.Join(top, ", ") + `]`
			}
			if len(ext) > 0 {
				body += `, "extensions": {"inherits": [` + strings.Join(ext, ", ") + `]}`
			}
			files[".clia/agents/"+d.slug+"/"+d.name] = "{" + body + "}"
		}
		write(t, root, files)
		before := profiles(t, root)
		res, err := Migrate(context.Background(), Options{Agents: agents.Options{Path: root}}, Tidy{Dir: ".", Write: true})
		if err != nil {
			rt.Fatal(err)
		}
		after := profiles(t, root)
		for k, v := range before {
			if after[k] != v {
				rt.Fatalf("%s changed:\nbefore %s\nafter  %s\nfiles %v\nresults %+v", k, v, after[k], files, res)
			}
		}
		again, err := Migrate(context.Background(), Options{Agents: agents.Options{Path: root}}, Tidy{Dir: ".", Write: true})
		if err != nil {
			rt.Fatal(err)
		}
		for _, r := range again {
			if r.Changed {
				rt.Fatalf("a second run changes %s", r.File)
			}
		}
	})
}

// The existing mirror of a migrated document is rendered again in the same
// run, so the mirrors never show the pre-migration document.
func TestMigrateRendersMirrorsAgain(t *testing.T) {
	root := tempRoot(t)
	write(t, root, map[string]string{
		".git":                           "<dir>",
		".clia/agents/s/s@x.agenda.json": `{"$schemaVersion": "0.3.0", "title": "Plan", "sections": ["Next: ship it"]}`,
	})
	ctx := context.Background()
	opts := Options{Agents: agents.Options{Path: root}}
	if _, err := Mirrors(opts, nil, false); err != nil {
		t.Fatal(err)
	}
	mirror := filepath.Join(root, ".clia/agents/s/.generated/s.agenda.triad.md")
	before, err := os.ReadFile(mirror)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Migrate(ctx, opts, Tidy{Dir: ".", Write: true})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(mirror)
	if string(after) == string(before) {
		t.Fatalf("the mirror was not rendered again (results %+v)", res)
	}
	ms, err := Mirrors(opts, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Changed {
			t.Errorf("mirror %s is stale after migrate", m.File)
		}
	}
	if _, err := os.Stat(mirror + ".bak"); err == nil {
		t.Error("a generated mirror got a .bak")
	}
}

// A reference migrate cannot rewrite — here through a symbolic link whose
// name is not the renamed document's — makes the dry run and the write
// refuse, naming the file and the reference, and nothing is written.
func TestMigrateRefusesAReferenceItCannotRewrite(t *testing.T) {
	root := tempRoot(t)
	write(t, root, map[string]string{
		".git":                                 "<dir>",
		".clia/agents/root/root@ws.agent.json": `{"schemaVersion": "0.4.0", "role": "root", "guardrails": ["G-root"]}`,
		".clia/agents/a/a@ws.agent.triad.json": `{"schemaVersion": "0.4.0", "role": "a", "inherits": ["links/root.json"]}`,
	})
	os.MkdirAll(filepath.Join(root, "links"), 0o755)
	if err := os.Symlink(filepath.Join(root, ".clia/agents/root/root@ws.agent.json"), filepath.Join(root, "links/root.json")); err != nil {
		t.Skip(err)
	}
	before := snapshot(t, root)
	for _, w := range []bool{false, true} {
		_, err := Migrate(context.Background(), Options{Agents: agents.Options{Path: root}}, Tidy{Dir: ".", Write: w})
		want := `a@ws.agent.triad.json inherits "links/root.json", which leads to ` + filepath.Join(root, ".clia/agents/root/root@ws.agent.json")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "cannot rewrite it") {
			t.Fatalf("write=%v: got %v, want it to name %q", w, err, want)
		}
	}
	if d := diffSnapshots(before, snapshot(t, root)); d != "" {
		t.Errorf("a refused migrate changed %s", d)
	}
}
