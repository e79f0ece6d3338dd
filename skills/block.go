package skills

import (
	"cmp"
	"fmt"
	"html"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
)

// DefaultBlockBytes bounds the catalog block (Codex caps its own list at
// 8,000 characters when it does not know the context window).
const DefaultBlockBytes = 8000

// BlockOptions shape a catalog block.
type BlockOptions struct {
	// MaxBytes bounds the block; 0 means [DefaultBlockBytes]. Entries that
	// do not fit are left out, and the block names them.
	MaxBytes int
	// Load says how to load a skill, completing "load it first: …": e.g.
	// "call skills_load with its name" or "read the SKILL.md at its
	// location". "" means the file-read wording.
	Load string
	// Reach says how the model reaches a skill the bound left out, in the
	// harness the block is for, completing "To use one, …": e.g. "call
	// skills_search with the task" (MCP) or "run lineage skills search
	// TASK in a shell" (a hook). "" means the shell wording.
	Reach string
	// Omit leaves a skill out (one the harness already shows natively).
	Omit func(Skill) bool
}

// Block is the catalog as a model reads it, with where each entry comes
// from: the seam for any caller that pins the catalog into a context.
type Block struct {
	// Text is "" when there is no skill to show (the standard's client
	// guide: no empty catalog).
	Text string `json:"text"`
	// Skills are the entries shown, in order, with their provenance (path,
	// scope, kind, mtime, size).
	Skills []Skill `json:"skills"`
	// Cut counts the skills left out for the size bound, CutSkills are
	// they (most relevant first, as the note names them); Omitted counts
	// those left out by BlockOptions.Omit.
	Cut       int     `json:"cut,omitzero"`
	CutSkills []Skill `json:"cutSkills,omitzero"`
	Omitted   int     `json:"omitted,omitzero"`
}

// Block renders the catalog: the rule (load a skill before using it), then
// one <skill> per skill by name, within the size bound. When not every
// skill fits, the nearest to the working directory are kept (project
// skills from the deepest folder up, then configured folders, then the
// user's; by name among equals), and a note names the ones left out and
// how to reach them.
func (c *Catalog) Block(o BlockOptions) Block {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultBlockBytes
	}
	if o.Load == "" {
		o.Load = "read the SKILL.md at its location"
	}
	if o.Reach == "" {
		o.Reach = "run lineage skills search TASK in a shell (lineage skills list shows every one)"
	}
	var b Block
	var shown []Skill
	for _, s := range c.Skills {
		if o.Omit != nil && o.Omit(s) {
			b.Omitted++
			continue
		}
		shown = append(shown, s)
	}
	if len(shown) == 0 {
		return b
	}
	head := "<skills_context>\nSkills are instructions for specific tasks. When a task matches a skill's description, load it first: " +
		o.Load + "; then follow it. Load only the skills the task needs, once each. Relative paths in a skill resolve against its folder.\n<available_skills>\n"
	tail := "</available_skills>\n</skills_context>"
	ranked := slices.Clone(shown)
	slices.SortStableFunc(ranked, byRelevance)
	size, k := len(head)+len(tail), 0
	for ; k < len(ranked); k++ {
		note := ""
		if k+1 < len(ranked) {
			note = cutNote(ranked[k+1:], o.Reach)
		}
		e := len(entry(ranked[k]))
		if size+e+len(note) > o.MaxBytes {
			break
		}
		size += e
	}
	kept := ranked[:k]
	slices.SortFunc(kept, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	var body strings.Builder
	for _, s := range kept {
		body.WriteString(entry(s))
	}
	b.Skills = kept
	if cut := ranked[k:]; len(cut) > 0 {
		b.Cut = len(cut)
		b.CutSkills = slices.Clone(cut)
		body.WriteString(cutNote(cut, o.Reach))
	}
	b.Text = head + body.String() + tail
	return b
}

// byRelevance orders skills by how near they are to the working
// directory: project skills first, from the deepest skill folder (the
// directory nearest the cwd) up, then configured folders, then the
// user's; by name among equals.
func byRelevance(a, b Skill) int {
	return cmp.Or(cmp.Compare(scopeRank(a.Scope), scopeRank(b.Scope)),
		-cmp.Compare(depth(a.Folder), depth(b.Folder)), strings.Compare(a.Name, b.Name))
}

func scopeRank(s Scope) int {
	switch s {
	case ScopeProject:
		return 0
	case ScopeExtra:
		return 1
	}
	return 2
}

// depth counts the separators of a (clean, absolute) path.
func depth(p string) int { return strings.Count(filepath.ToSlash(p), "/") }

// maxCutNames bounds the bytes of names a cut note lists.
const maxCutNames = 600

// cutNote names the skills left out (most relevant first, up to
// maxCutNames bytes of names) and how to reach them.
func cutNote(cut []Skill, reach string) string {
	names := make([]string, 0, len(cut))
	n := 0
	for _, s := range cut {
		name := fsx.LineSafe(s.Name)
		if n+len(name) > maxCutNames && len(names) > 0 {
			break
		}
		names = append(names, html.EscapeString(name))
		n += len(name) + 2
	}
	list := strings.Join(names, ", ")
	if rest := len(cut) - len(names); rest > 0 {
		list += fmt.Sprintf(" and %d more", rest)
	}
	return fmt.Sprintf("<note>%d more skill(s) not listed here for space: %s. To use one, %s.</note>\n", len(cut), list, html.EscapeString(reach))
}

// Entry is the skill's <skill> element in a block.
func (s Skill) Entry() string { return entry(s) }

func entry(s Skill) string {
	esc := func(v string) string { return html.EscapeString(fsx.LineSafe(v)) }
	return fmt.Sprintf("<skill>\n<name>%s</name>\n<description>%s</description>\n<location>%s</location>\n</skill>\n",
		esc(s.Name), esc(strings.Join(strings.Fields(s.Description), " ")), esc(s.Path))
}

// Context discovers the skills for opts and renders their block: the
// catalog with provenance, as a one-context call pins it.
func Context(opts Options, bo BlockOptions) (Block, *Catalog, error) {
	cat, err := Discover(opts)
	if err != nil {
		return Block{}, nil, err
	}
	return cat.Block(bo), cat, nil
}
