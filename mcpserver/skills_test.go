package mcpserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func init() {
	toolHintsWanted["skills_list"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
	// skills_load records what the session was given: a second call answers differently.
	toolHintsWanted["skills_load"] = struct{ readOnly, destructive, idempotent bool }{false, false, false}
	toolHintsWanted["skills_search"] = struct{ readOnly, destructive, idempotent bool }{true, false, true}
}

func skillFile(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body
}

// The server instructions carry the catalog and the rule to load a skill
// with skills_load; skills_list, skills_search and skills_load answer; a
// second load of an unchanged skill in the session is "already loaded",
// a changed one is given again, and another session gets it in full.
func TestSkillsProgressiveDisclosure(t *testing.T) {
	dir := project(t)
	p := filepath.Join(dir, ".agents", "skills", "release-check", "SKILL.md")
	writeFile(t, p, skillFile("release-check", "Run the release checklist.", "1. Test.\n2. Tag."))
	writeFile(t, filepath.Join(dir, ".agents", "skills", "release-check", "references", "list.md"), "the list")
	writeFile(t, filepath.Join(dir, ".claude", "skills", "pdf", "SKILL.md"), skillFile("pdf", "Fill PDF forms.", "Forms."))
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)

	ins := cs.InitializeResult().Instructions
	for _, want := range []string{
		"<skills_context>",
		"load it first: call skills_load with its name;",
		"<name>release-check</name>\n<description>Run the release checklist.</description>\n<location>" + p + "</location>",
		"<name>pdf</name>",
	} {
		if !strings.Contains(ins, want) {
			t.Errorf("server instructions lack %q:\n%s", want, ins)
		}
	}

	var list struct {
		Skills []struct{ Name, Path string }
	}
	call(t, cs, "skills_list", nil, &list)
	if len(list.Skills) != 2 || list.Skills[1].Name != "release-check" || list.Skills[1].Path != p {
		t.Fatalf("skills_list = %+v", list)
	}
	var search SkillsSearchOutput
	call(t, cs, "skills_search", map[string]any{"query": "release"}, &search)
	if len(search.Matches) != 1 || search.Matches[0].Skill.Name != "release-check" || search.Matches[0].Reason != "name prefix" {
		t.Fatalf("skills_search = %+v", search)
	}

	load := func(cs *mcp.ClientSession, args map[string]any) (SkillsLoadOutput, string) {
		t.Helper()
		var out SkillsLoadOutput
		text := call(t, cs, "skills_load", args, &out)
		return out, text
	}
	first, text := load(cs, map[string]any{"name": "release-check"})
	if first.AlreadyLoaded || !strings.HasPrefix(text, fmt.Sprintf("<skill name=\"release-check\" path=%q>\n1. Test.\n2. Tag.\n</skill>", p)) ||
		!strings.Contains(text, "\n- references/list.md") {
		t.Fatalf("first load:\n%s", text)
	}
	second, text := load(cs, map[string]any{"name": "release-check"})
	if !second.AlreadyLoaded || !strings.HasPrefix(text, `Already loaded: skill "release-check"`) || second.Content != "" {
		t.Fatalf("second load: %+v\n%s", second, text)
	}
	writeFile(t, p, skillFile("release-check", "Run the release checklist.", "1. Test.\n2. Tag.\n3. Announce."))
	third, text := load(cs, map[string]any{"name": "release-check"})
	if third.AlreadyLoaded || !strings.Contains(text, "3. Announce.") {
		t.Fatalf("changed skill not given again:\n%s", text)
	}
	res, _ := load(cs, map[string]any{"name": "release-check", "resource": "references/list.md"})
	if res.Content != "the list" || res.AlreadyLoaded {
		t.Fatalf("resource: %+v", res)
	}
	other := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	if o, _ := load(other, map[string]any{"name": "release-check"}); o.AlreadyLoaded {
		t.Fatalf("another session got already loaded")
	}

	for args, want := range map[string]string{
		`{"name":"nope"}`: `no such skill "nope"`,
		`{"name":""}`:     "name: give the skill's name",
		`{"name":"release-check","resource":"../pdf/SKILL.md"}`: "outside the skill folder",
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(args), &m); err != nil {
			t.Fatal(err)
		}
		if got := callError(t, cs, "skills_load", m); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", args, got, want)
		}
	}
}

// Without skills the instructions carry no catalog (the standard's client
// guide: no empty catalog).
func TestSkillsNoCatalogWhenNone(t *testing.T) {
	cs := connectStdio(t, serverProc{cwd: project(t), stateDir: t.TempDir()}, nil)
	if ins := cs.InitializeResult().Instructions; strings.Contains(ins, "skills") {
		t.Errorf("instructions mention skills:\n%s", ins)
	}
}
