package compose

import (
	"fmt"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/internal/tokens"
	"github.com/agentlineage/lineage/skills"
	"github.com/agentlineage/lineage/tract"
)

// loadSkills discovers the skills of dir ([skills.Discover], as `lineage
// skills list` from there) and renders their catalog block
// ([skills.Catalog.Block]), weighed skill by skill. Skills the block's
// size bound cut are dropped (reason cap).
func loadSkills(o Options, dir string, counter tokens.Counter, trail *fsx.Trail) instructionPart {
	var out instructionPart
	if o.Skills == nil {
		return out
	}
	so := *o.Skills
	so.Cwd, so.Trail = dir, trail
	if so.Root.ProjectRootOverride == "" && so.Root.Markers == nil {
		so.Root = o.Instructions.Config.Root
	}
	if so.Home == "" {
		so.Home = o.Instructions.Home
	}
	cat, err := skills.Discover(so)
	if err != nil {
		out.warnings = append(out.warnings, "skills: "+err.Error())
		return out
	}
	defer cat.Close()
	if n := len(cat.Problems); n > 0 {
		out.warnings = append(out.warnings, fmt.Sprintf("skills: %d problem(s) with skill files (lineage skills lint lists them)", n))
	}
	b := cat.Block(skills.BlockOptions{Load: "call skills_load with its name, or read the SKILL.md at its location",
		Reach: "call skills_search with the task (or run lineage skills search TASK in a shell)", Omit: o.SkillsOmit})
	if b.Text == "" {
		return out
	}
	shown := map[string]bool{}
	p := &piece{text: b.Text, block: Block{Part: PartSystem, Source: SourceSkills, Role: tract.RoleSystem, Skills: []SkillSource{}}}
	content := 0
	for _, s := range b.Skills {
		shown[s.Path] = true
		n := tokens.Shared.CountKept(counter, o.Counts, s.Entry())
		p.block.Skills = append(p.block.Skills, SkillSource{Name: s.Name, Path: s.Path, Scope: string(s.Scope), Kind: s.Kind,
			MtimeNs: s.MtimeNs, Size: s.Size, Tokens: n})
		p.contributors = append(p.contributors, Contributor{Source: SourceSkills, Name: s.Name, Tokens: n})
		content += n
	}
	for _, s := range cat.Skills {
		if !shown[s.Path] && (o.SkillsOmit == nil || !o.SkillsOmit(s)) {
			out.dropped = append(out.dropped, Dropped{Source: SourceSkills, Reason: ReasonCap, Path: s.Path,
				Detail: fmt.Sprintf("skill %s: the catalog block's size bound (%d bytes)", s.Name, skills.DefaultBlockBytes)})
		}
	}
	// Counted whole, the block may come out a token or two under its
	// entries counted one by one: then it weighs what they do, so the
	// block's tokens stay its overhead plus its entries'.
	p.block.Tokens = tract.MessageTokens(tokens.Shared.CountKept(counter, o.Counts, b.Text), false)
	if p.block.Overhead = p.block.Tokens - content; p.block.Overhead < 0 {
		p.block.Overhead, p.block.Tokens = 0, content
	}
	out.block = p
	return out
}
