package skills

import (
	"fmt"
	"html"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
)

// DefaultBlockBytes bounds the catalog block (Codex caps its own list at
// 8,000 characters when it does not know the context window).
const DefaultBlockBytes = 8000

// BlockOptions shape a catalog block.
type BlockOptions struct {
	// MaxBytes bounds the block; 0 means [DefaultBlockBytes]. Entries that
	// do not fit are left out, and the block says how many.
	MaxBytes int
	// Load says how to load a skill, completing "load it first: …": e.g.
	// "call skills_load with its name" or "read the SKILL.md at its
	// location". "" means the file-read wording.
	Load string
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
	// Cut counts the skills left out for the size bound; Omitted those left
	// out by BlockOptions.Omit.
	Cut     int `json:"cut,omitzero"`
	Omitted int `json:"omitted,omitzero"`
}

// Block renders the catalog: the rule (load a skill before using it), then
// one <skill> per skill by name, within the size bound, with a note naming
// how many were cut and how to find them.
func (c *Catalog) Block(o BlockOptions) Block {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultBlockBytes
	}
	if o.Load == "" {
		o.Load = "read the SKILL.md at its location"
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
	var body strings.Builder
	for i, s := range shown {
		e := entry(s)
		note := ""
		if rest := len(shown) - i - 1; rest > 0 {
			note = cutNote(rest)
		}
		if len(head)+body.Len()+len(e)+len(note)+len(tail) > o.MaxBytes {
			b.Cut = len(shown) - i
			body.WriteString(cutNote(b.Cut))
			break
		}
		body.WriteString(e)
		b.Skills = append(b.Skills, s)
	}
	b.Text = head + body.String() + tail
	return b
}

// Entry is the skill's <skill> element in a block.
func (s Skill) Entry() string { return entry(s) }

func entry(s Skill) string {
	esc := func(v string) string { return html.EscapeString(fsx.LineSafe(v)) }
	return fmt.Sprintf("<skill>\n<name>%s</name>\n<description>%s</description>\n<location>%s</location>\n</skill>\n",
		esc(s.Name), esc(strings.Join(strings.Fields(s.Description), " ")), esc(s.Path))
}

func cutNote(n int) string {
	return fmt.Sprintf("<note>%d more skill(s) not listed here for space: search the catalog by task (skills_search, or lineage skills search) to find them.</note>\n", n)
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
