package hooks

import (
	"fmt"
	"strings"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
)

// RulesHeader opens the rules sent at session start.
const RulesHeader = "AGENTS.md in this session:"

// The seed's prompt rules that stay true whatever the harness loads (§8
// rules 3, 4 and 5); rule 1 depends on where the files are, rule 2 ("use
// the resolver") is the hook's job.
const (
	ruleReminder = `- When a <system-reminder type="agents.resolve.paths"> names files after a tool call, read them and apply them before you edit files in that scope.`
	ruleOnce     = `- Read each AGENTS.md path once; a path is named again only when the file changed.`
	ruleResume   = `- When a session resumes with a <system-reminder type="session.resume.diff">, act on those changes first.`
)

// startContext is the text for a session (or subagent) start: the bodies
// of the chain's files the harness did not load, or their paths when
// lineage cannot tell; the agent's guardrails; then the rules, which say
// where the files are.
func startContext(h *Harness, native Native, in instructions.Initial, profile string) string {
	var mine, theirs []instructions.File
	var cuts []string
	for _, f := range in.Files {
		switch kept, cut := native.Cut(f.Path); {
		case !native.Known:
			mine = append(mine, f)
		case cut:
			theirs = append(theirs, f)
			cuts = append(cuts, fmt.Sprintf("- %s cut %s after %d of its %d bytes (its byte cap): read the rest of that file yourself before you rely on it.",
				h.Title, fsx.LineSafe(f.Path), kept, f.SizeBytes))
		case native.Loaded(f.Path):
			theirs = append(theirs, f)
		default:
			mine = append(mine, f)
		}
	}
	block := in.Text
	if !native.Known && len(mine) > 0 {
		block = pathsBlock(h, mine)
	}
	rules := []string{RulesHeader, firstRule(h, native, mine, theirs, block != "")}
	rules = append(rules, cuts...)
	rules = append(rules, ruleReminder, ruleOnce, ruleResume)
	return joinNonEmpty(block, profile, strings.Join(rules, "\n"))
}

// pathsBlock names the chain's files without their bodies, for a harness
// whose own loading lineage cannot tell.
func pathsBlock(h *Harness, files []instructions.File) string {
	var b strings.Builder
	b.WriteString("<agents_context scope=\"initial\" mode=\"paths\">\n")
	b.WriteString("These instruction files apply to the working directory. Read each one once, unless " + h.Title + " already put its text in your context:\n")
	for _, f := range files {
		fmt.Fprintf(&b, "- %s (mtime: %d)\n", fsx.LineSafe(f.Path), f.MtimeMs)
	}
	b.WriteString("</agents_context>")
	return b.String()
}

// firstRule is the seed's rule 1, true for what this start sent.
func firstRule(h *Harness, native Native, mine, theirs []instructions.File, block bool) string {
	const noSearch = "do not search for AGENTS.md files on every turn."
	list := func(fs []instructions.File) string {
		ps := make([]string, len(fs))
		for i, f := range fs {
			ps[i] = fsx.LineSafe(f.Path)
		}
		return strings.Join(ps, ", ")
	}
	switch {
	case !native.Known && len(mine) > 0:
		return "- The instruction files that apply to the working directory are listed above; read them once, then " + noSearch
	case len(mine) > 0 && len(theirs) > 0:
		return "- The instruction files that apply to the working directory are in your context: " + h.Title + " loaded " + list(theirs) + " itself, and the block above holds " + list(mine) + "; " + noSearch
	case len(theirs) > 0:
		return "- The instruction files that apply to the working directory are in your context: " + h.Title + " loaded " + list(theirs) + " itself; " + noSearch
	case block:
		return "- The AGENTS.md files that apply to the working directory are above; " + noSearch
	}
	return "- No AGENTS.md applies to the working directory yet; " + noSearch
}
