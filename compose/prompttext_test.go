package compose_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/platformtest"
)

// The persona and compact system instructions an agent document names join
// its profile block after the fields, each headed by the file read, and
// the block's provenance names that file and the document whose field
// named it; a warm compile reads the text again once it changes.
func TestProfileBlockCarriesPersonaAndSystemInstructions(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	agent := ".clia/agents/tau/tau@ws.agent.triad.json"
	platformtest.WriteTree(t, dir, map[string]string{".git/HEAD": "x",
		agent: `{"schemaVersion":"0.4.0","slug":"tau","role":"Timekeeper","persona":{"profilePath":"./persona.md"},` +
			`"systemInstructions":{"compactPath":".clia/agents/tau/compact.md","fullPath":"./full.md"}}` + "\n",
		".clia/agents/tau/persona.md": "\nYou are Tau, patient and exact.\n\n",
		".clia/agents/tau/compact.md": "Answer in one sentence.\n",
		".clia/agents/tau/full.md":    "The long version.\n",
	})
	platformtest.AgeTree(t, dir)
	o := compose.Options{Slug: "tau", Instructions: instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir, Home: dir}, Format: compose.FormatText}
	res, err := compose.Compile(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ad := filepath.Join(dir, ".clia/agents/tau")
	want := `<agent_profile slug="tau">
role: "Timekeeper"
persona (` + filepath.Join(ad, "persona.md") + `):
You are Tau, patient and exact.
systemInstructions (` + filepath.Join(ad, "compact.md") + `):
Answer in one sentence.
</agent_profile>`
	var block *compose.Block
	for i := range res.Blocks {
		if res.Blocks[i].Source == compose.SourceProfile {
			block = &res.Blocks[i]
		}
	}
	if block == nil || !strings.Contains(res.Messages[len(res.Messages)-1].Content, want) {
		t.Fatalf("profile block:\n%s\nwant\n%s", res.Messages[len(res.Messages)-1].Content, want)
	}
	fields := map[string]compose.FieldSource{}
	for _, f := range block.Fields {
		fields[f.Field] = f
	}
	for name, ptr := range map[string]string{"persona": "/persona/profilePath", "systemInstructions": "/systemInstructions/compactPath"} {
		f := fields[name]
		if len(f.Values) != 1 || f.Values[0].Pointer != ptr || f.Values[0].File != filepath.Join(dir, agent) || !strings.HasPrefix(f.TextFile, ad) || f.Tokens == 0 {
			t.Errorf("%s provenance %+v", name, f)
		}
	}
	src := compose.NewSources()
	reuseCompile(t, o, src, "profile", func(r compose.Result) string { return r.Messages[len(r.Messages)-1].Content }, "one sentence", "")
	platformtest.WriteTree(t, dir, map[string]string{".clia/agents/tau/compact.md": "Answer in two sentences.\n"})
	platformtest.AgeTree(t, dir)
	reuseCompile(t, o, src, "profile", func(r compose.Result) string { return r.Messages[len(r.Messages)-1].Content }, "two sentences", "one sentence")
}
