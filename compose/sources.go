package compose

import (
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/tokens"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/triad"
)

// instructionPart is what the AGENTS.md chain gives the request.
type instructionPart struct {
	block    *piece
	dropped  []Dropped
	warnings []string
}

// loadInstructions loads dir's initial chain ([instructions.Start], no
// session saved) and weighs its block file by file.
func loadInstructions(o Options, dir string, counter tokens.Counter) instructionPart {
	io := o.Instructions
	io.Cwd = dir
	_, in := instructions.Start(io)
	out := instructionPart{warnings: in.Warnings}
	for _, d := range in.Dirs {
		switch d.Status {
		case instructions.StatusMaxFiles, instructions.StatusMaxBytes:
			out.dropped = append(out.dropped, Dropped{Source: SourceInstructions, Reason: ReasonCap, Path: d.Path, Detail: string(d.Status) + ": " + d.Detail})
		case instructions.StatusDuplicate, instructions.StatusUnreadable, instructions.StatusNotRegular:
			detail := string(d.Status)
			if d.Detail != "" {
				detail += ": " + d.Detail
			}
			out.dropped = append(out.dropped, Dropped{Source: SourceInstructions, Reason: ReasonSkip, Path: d.Path, Detail: detail})
		}
	}
	if in.Text == "" {
		return out
	}
	files := map[string]instructions.File{}
	for _, f := range in.Files {
		files[f.Path] = f
	}
	p := &piece{text: in.Text, block: Block{Part: PartSystem, Source: SourceInstructions, Role: tract.RoleSystem, Files: []FileSource{}}}
	frame, content := 0, 0
	for _, part := range in.Parts {
		n := tokens.Shared.CountKept(counter, o.Counts, part.Text)
		if part.Path == "" {
			frame += n
			continue
		}
		f := files[part.Path]
		p.block.Files = append(p.block.Files, FileSource{Path: f.Path, MtimeMs: f.MtimeMs, SizeBytes: f.SizeBytes, Tokens: n})
		p.contributors = append(p.contributors, Contributor{Source: SourceInstructions, Name: f.Path, Tokens: n})
		content += n
	}
	p.block.Tokens = tract.MessageTokens(frame+content, false)
	p.block.Overhead = p.block.Tokens - content
	out.block = p
	return out
}

// loadProfile merges the agent document of o.Slug as `agents profile`
// does ([agents.Resolve], [agents.Chain.RequireProfile],
// [agents.Profile.Document]) and renders its profile fields as one block.
func loadProfile(o Options, dir string, counter tokens.Counter) (*piece, []string, error) {
	ao := o.Agents
	if ao.Path == "" {
		ao.Path = dir
	}
	ch, err := agents.Resolve(ao, o.Slug)
	if err != nil {
		return nil, nil, err
	}
	if o.AgentsCheck != nil {
		if err := o.AgentsCheck(ch); err != nil {
			return nil, nil, err
		}
	}
	prof, err := ch.RequireProfile(triad.Agent)
	if err != nil {
		return nil, nil, err
	}
	rep := ch.Report()
	warnings := append(append([]string{}, rep.Errors...), rep.Warnings...)
	doc := prof.Document(agents.DocumentOptions{})
	texts, tw := prof.PromptTexts()
	warnings = append(warnings, tw...)
	text, fields := profileBlock(o.Slug, doc, o.profileFields(), texts)
	if len(fields) == 0 {
		warnings = append(warnings, "agent "+o.Slug+": none of the profile fields ("+strings.Join(o.profileFields(), ", ")+") is set; no profile block")
		return nil, warnings, nil
	}
	layers := map[string]int{}
	inherited := map[string]bool{}
	for i, l := range prof.Layers {
		layers[l.File], inherited[l.File] = i, l.Inherited
	}
	pointers := prof.SortedPointers()
	p := &piece{text: text, block: Block{Part: PartSystem, Source: SourceProfile, Role: tract.RoleSystem}}
	content := 0
	for _, f := range fields {
		n := tokens.Shared.CountKept(counter, o.Counts, f.text)
		base := string(jsontext.Pointer("").AppendToken(f.name))
		fs := FieldSource{Field: f.name, Tokens: n, Values: []ValueSource{}, TextFile: f.file}
		for _, ptr := range pointers {
			if f.pointer != "" && ptr != f.pointer {
				continue
			}
			if ptr == base || strings.HasPrefix(ptr, base+"/") {
				file := prof.Provenance[ptr]
				fs.Values = append(fs.Values, ValueSource{Pointer: ptr, File: file, Layer: layers[file], Inherited: inherited[file]})
			}
		}
		p.block.Fields = append(p.block.Fields, fs)
		p.contributors = append(p.contributors, Contributor{Source: SourceProfile, Name: o.Slug + " " + f.name, Tokens: n})
		content += n
	}
	frame := tokens.Shared.CountKept(counter, o.Counts, profileOpen(o.Slug)) + tokens.Shared.CountKept(counter, o.Counts, profileClose)
	p.block.Tokens = tract.MessageTokens(frame+content, false)
	p.block.Overhead = p.block.Tokens - content
	return p, warnings, nil
}

// profileLine is one field's line(s) of a profile block; a prompt text
// (persona, system instructions) also has the field that named its file
// and that file.
type profileLine struct {
	name          string
	text          string
	pointer, file string
}

const profileClose = "</agent_profile>"

func profileOpen(slug string) string { return "<agent_profile slug=" + strconv.Quote(slug) + ">\n" }

// profileBlock renders the fields of a merged agent document (as
// [agents.Profile.Document] returns it) that are set, in the order given:
// "<agent_profile slug=…>", then "field: value" per field with the value
// as canonical JSON ([triad.Canonical]), then each prompt text as
// "<name> (<file>):" and the text on the lines after it, then
// "</agent_profile>". It returns "" when none is set.
func profileBlock(slug string, doc *triad.Value, fields []string, texts []agents.PromptText) (string, []profileLine) {
	var lines []profileLine
	for _, name := range fields {
		v := doc.Get(name)
		if unset(v) {
			continue
		}
		lines = append(lines, profileLine{name: name, text: name + ": " + string(triad.Canonical(v))})
	}
	for _, t := range texts {
		lines = append(lines, profileLine{name: t.Name, text: t.Name + " (" + t.File + "):\n" + t.Text + "\n", pointer: t.Pointer, file: t.File})
	}
	if len(lines) == 0 {
		return "", nil
	}
	var b strings.Builder
	b.WriteString(profileOpen(slug))
	for _, l := range lines {
		b.WriteString(l.text)
	}
	b.WriteString(profileClose)
	return b.String(), lines
}

// unset: a field the block leaves out (absent, null, blank, [] or {}).
func unset(v *triad.Value) bool {
	return v.IsEmpty() || (v.Kind == triad.Array && len(v.Items) == 0) || (v.Kind == triad.Object && len(v.Members) == 0)
}

// ProfilePrompt is the profile block `lineage context --slug` puts in the
// system part, for a merged agent profile: the fields (nil:
// [DefaultProfileFields]) as canonical JSON, then the persona and system
// instructions texts headed by the file each came from
// ([agents.Profile.PromptTexts]); "" when nothing is set. The warnings
// name the texts left out.
func ProfilePrompt(slug string, prof *agents.Profile, fields []string) (string, []string) {
	if fields == nil {
		fields = DefaultProfileFields
	}
	texts, warnings := prof.PromptTexts()
	text, _ := profileBlock(slug, prof.Document(agents.DocumentOptions{}), fields, texts)
	return text, warnings
}
