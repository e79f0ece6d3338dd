// Package hooks runs lineage inside the hook mechanisms of coding-agent
// harnesses — Claude Code, Gemini CLI and Codex CLI — so the AGENTS.md
// resolver works without any cooperation from the model.
//
// The model:
//
//   - A harness runs a command for each hook event and gives it one JSON
//     event on stdin: the harness session id, the working directory, the
//     event name and, for tool events, the tool's name and input.
//     [Harness.ParseEvent] reads it into an [Event]: what kind of moment it
//     is (a session start, a resume, a tool that touched paths, anything
//     else) and the paths the tool touched, taken from the input fields the
//     harness documents for each tool.
//   - [Handle] answers an event with the text the model should get as
//     additional context: at a start (startup, clear, compact) the initial
//     <agents_context> block, the rules for automatic resolution and, with a
//     slug, the agent's merged guardrails; at a resume the
//     session.resume.diff reminder (or nothing); after a tool the
//     agents.resolve.paths reminder for files new to the session (or
//     nothing). [Harness.Output] wraps that text in the harness's
//     hookSpecificOutput JSON.
//   - Each harness session has a state file in the sessions directory
//     ([SessionPath]), mode 0600, updated under a file lock and written only
//     when it changed, so concurrent hooks of one session report each file
//     once. Files older than [MaxAge] are removed whenever one is written.
//   - [Install] and [Uninstall] edit a harness's settings file in place:
//     only the bytes of lineage's own hook entries change, every other key,
//     hook, byte and key order is kept, and a second install is a no-op.
package hooks
