package hooks

import (
	"fmt"
	"strings"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
)

// RulesHeader opens the rules sent at session start (for the default
// file name; [rulesHeader] names the configured ones).
const RulesHeader = "AGENTS.md in this session:"

func rulesHeader(label string) string { return label + " in this session:" }

// The seed's prompt rules that stay true whatever the harness loads (§8
// rules 3, 4 and 5); rule 1 depends on where the files are, rule 2 ("use
// the resolver") is the hook's job.
const (
	ruleReminder = `- When a <system-reminder type="agents.resolve.paths"> names files after a tool call, read them and apply them before you edit files in that scope.`
	ruleResume   = `- When a session resumes with a <system-reminder type="session.resume.diff">, act on those changes first.`
)

func ruleOnce(label string) string {
	return "- Read each " + label + " path once; a path is named again only when the file changed."
}

// startContext is the text for a session (or subagent) start: the bodies
// of the chain's files the harness did not load, or their paths when
// lineage cannot tell; the agent's guardrails; then the rules, which say
// where the files are.
func startContext(h *Harness, native Native, in instructions.Initial, profile string, names []string) string {
	var mine, theirs, unsure []instructions.File
	var cuts []string
	for _, f := range in.Files {
		switch kept, cut := native.Cut(f.Path); {
		case native.Unsure(f.Path):
			unsure = append(unsure, f)
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
	label := instructions.NamesLabel(names)
	block := in.Text
	if len(unsure) > 0 {
		block = joinNonEmpty(block, pathsBlock(h, unsure))
	}
	rules := []string{rulesHeader(label), firstRule(h, label, mine, theirs, unsure, in.Text != "")}
	rules = append(rules, cuts...)
	rules = append(rules, ruleReminder, ruleOnce(label), ruleResume)
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

// firstRule is the seed's rule 1, true for what this start sent: what
// the harness loaded itself, what the block holds, what the list names.
func firstRule(h *Harness, label string, mine, theirs, unsure []instructions.File, block bool) string {
	noSearch := "do not search for " + label + " files on every turn."
	list := func(fs []instructions.File) string {
		ps := make([]string, len(fs))
		for i, f := range fs {
			ps[i] = fsx.LineSafe(f.Path)
		}
		return strings.Join(ps, ", ")
	}
	switch {
	case len(unsure) > 0 && len(mine)+len(theirs) == 0:
		return "- The instruction files that apply to the working directory are listed above; read them once, then " + noSearch
	case len(unsure) > 0:
		var parts []string
		if len(theirs) > 0 {
			parts = append(parts, h.Title+" loaded "+list(theirs)+" itself")
		}
		if len(mine) > 0 {
			parts = append(parts, "the block above holds "+list(mine))
		}
		parts = append(parts, "the list above names "+list(unsure)+" (read each once unless its text is already in your context)")
		return "- The instruction files that apply to the working directory: " + strings.Join(parts, "; ") + "; " + noSearch
	case len(mine) > 0 && len(theirs) > 0:
		return "- The instruction files that apply to the working directory are in your context: " + h.Title + " loaded " + list(theirs) + " itself, and the block above holds " + list(mine) + "; " + noSearch
	case len(theirs) > 0:
		return "- The instruction files that apply to the working directory are in your context: " + h.Title + " loaded " + list(theirs) + " itself; " + noSearch
	case block:
		return "- The " + label + " files that apply to the working directory are above; " + noSearch
	}
	return "- No " + label + " applies to the working directory yet; " + noSearch
}
