package handoff

import (
	"fmt"
	"path/filepath"
	"strings"
)

// StartPrompt is the first prompt of the command that starts a harness's
// handed-off session: the handoff itself reaches the model through
// lineage's session-start hook, so the prompt only points at it.
const StartPrompt = "Continue the session handed off to you: its summary and latest turns are in your context."

// Text is what a harness's new session gets at its start: the handoff's
// context (the summary and the turns after it) framed with where it came
// from.
func Text(res Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<lineage_handoff session=%q at=%q tract=%q summary=%q>\n", res.Session, res.At.Short(), res.Tract, res.Summary)
	fmt.Fprintf(&b, "This session continues %s session %s, handed off by lineage at commit %s. What was said there, under lineage's budget", harnessTitle(res.Harness), res.Session, res.At.Short())
	if res.Summary != SummaryNone {
		b.WriteString(", its summary first")
	}
	b.WriteString(":\n\n")
	b.WriteString(strings.TrimSpace(res.Context.Request.Text))
	b.WriteString("\n</lineage_handoff>")
	return b.String()
}

func harnessTitle(h string) string {
	switch h {
	case "claude":
		return "a Claude Code"
	case "codex":
		return "a Codex CLI"
	case "gemini":
		return "a Gemini CLI"
	}
	return "the"
}

// StartCommand is the shell command that starts t's new session in
// project, from the folder cwd: the harness with [StartPrompt] (Gemini CLI
// interactive with -i), after a cd when project is elsewhere.
func StartCommand(t Target, project, cwd string) string {
	var cmd string
	switch t {
	case ToGemini:
		cmd = "gemini -i " + shellQuote(StartPrompt)
	default:
		cmd = string(t) + " " + shellQuote(StartPrompt)
	}
	if filepath.Clean(project) != filepath.Clean(cwd) {
		cmd = "cd " + shellQuote(project) + " && " + cmd
	}
	return cmd
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
