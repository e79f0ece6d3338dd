package hooks

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlineage/lineage/internal/fsx"
)

// GitHub Copilot CLI (docs.github.com/copilot/reference/copilot-cli-reference/
// cli-hooks-reference, and what Copilot CLI 1.0.102 does, driven against a
// fake model): hook files are .github/hooks/*.json of the repository and
// $COPILOT_HOME/hooks/*.json (else ~/.copilot/hooks), each {"version": 1,
// "hooks": {"<event>": [{"type": "command", "command": …, "matcher": …}]}}
// — one flat entry per command. An event configured by its PascalCase
// name (SessionStart, PostToolUse, …) gets the "VS Code compatible"
// payload: hook_event_name, session_id, cwd, tool_name (Claude Code's
// names: Read for view, Write for create, Edit for edit), tool_input;
// subagent events also agent_id, agent_type, parent_agent_id, with the
// subagent's own id as session_id. SubagentStart, documented by its
// camelCase name only, comes without hook_event_name and with sessionId
// (the parent's) beside agent_id. Copilot CLI puts a top-level
// additionalContext of SessionStart, UserPromptSubmit and PostToolUse in
// the conversation (the reference's table says sessionStart's output is
// not processed; 1.0.102 does process it), and SubagentStart's ahead of
// the subagent's prompt; PreCompact's output is a notification only.
const (
	copilotSubagentEvent = "SubagentStart"
	copilotPromptEvent   = "UserPromptSubmit"
)

// copilotWire is what Copilot CLI's events add to the shared fields:
// the camelCase spellings and the subagent's parent.
type copilotWire struct {
	SessionIDCamel  string `json:"sessionId"`
	CwdCamel        string `json:"cwd"`
	AgentName       string `json:"agentName"`
	ParentAgentID   string `json:"parent_agent_id"`
	ParentCamel     string `json:"parentAgentId"`
	AgentIDCamel    string `json:"agentId"`
	TranscriptCamel string `json:"transcriptPath"`
}

// copilotEvent fills w's shared fields from a Copilot CLI event: the
// camelCase spellings where the snake_case ones are missing, the name of
// the one event that carries none (SubagentStart: an agentName and no
// stop reason), and the session a subagent's event belongs to (its
// parent's: each subagent event names the subagent's own id as its
// session, and the parent as parent_agent_id).
func copilotEvent(data []byte, w *wireEvent) {
	var c copilotWire
	_ = json.Unmarshal(data, &c, json.RejectUnknownMembers(false), jsontext.AllowDuplicateNames(true))
	if w.SessionID == "" {
		w.SessionID = c.SessionIDCamel
	}
	if w.AgentID == "" {
		w.AgentID = c.AgentIDCamel
	}
	if w.Transcript == "" {
		w.Transcript = c.TranscriptCamel
	}
	if w.Name == "" && c.AgentName != "" && w.AgentID != "" {
		w.Name = copilotSubagentEvent
	}
	parent := c.ParentAgentID
	if parent == "" {
		parent = c.ParentCamel
	}
	if w.AgentID != "" && parent != "" {
		w.SessionID = parent
	}
}

// copilotOutput is Copilot CLI's answer: a top-level additionalContext.
func copilotOutput(context string) ([]byte, error) {
	if context == "" {
		return nil, nil
	}
	out, err := json.Marshal(struct {
		AdditionalContext string `json:"additionalContext"`
	}{context}, jsontext.AllowInvalidUTF8(true))
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// copilotTools are the file tools of Copilot CLI's PascalCase events
// (view, create, edit) and of its camelCase ones.
const copilotTools = "Read|Write|Edit|view|create|edit"

// copilotPaths: the path Copilot CLI's file tools name (tool_input.path).
func copilotPaths(tool string, input map[string]any) ([]string, error) {
	switch tool {
	case "Read", "Write", "Edit", "view", "create", "edit":
		return str(input, "path")
	}
	return nil, nil
}

// copilotNames are the instruction files Copilot CLI 1.0.102 puts in its
// system prompt from every directory between the cwd and the repository
// root (the nearest .git above; none: the cwd alone), besides
// .github/copilot-instructions.md.
var copilotNames = [...]string{"AGENTS.md", "CLAUDE.md", "GEMINI.md"}

// copilotNative: what Copilot CLI loads by itself (its custom
// instructions, checked by running 1.0.102): AGENTS.md, CLAUDE.md and
// GEMINI.md of the cwd and each directory up to the repository root, and
// .github/copilot-instructions.md there; after its view tool, the
// AGENTS.md files between the file and the cwd (as a reminder after the
// result). Its create and edit tools attach nothing. Whether a nested
// CLAUDE.md or GEMINI.md is attached after view was not seen: those are
// named with "may have attached". Run with --no-custom-instructions (seen
// on the command line of a process above the hook) it loads none.
func copilotNative(cwd string, env Env) Native {
	n := Native{Harness: Copilot, Known: true, Names: append([]string{".github/copilot-instructions.md"}, copilotNames[:]...), files: map[string]int64{},
		How: "Copilot CLI custom instructions: AGENTS.md, CLAUDE.md, GEMINI.md from the cwd up to the repository root, and .github/copilot-instructions.md"}
	if v := env.get("COPILOT_CLI_BINARY_VERSION"); v != "" {
		n.Version = v
	}
	if env.parentHasFlag("--no-custom-instructions") {
		// Seen with 1.0.102: no AGENTS.md reaches the model, and none is
		// attached after view. (Windows gives lineage no other process's
		// arguments: there the flag goes unseen.)
		n.Names = nil
		n.How = "Copilot CLI runs with --no-custom-instructions: it loads no instruction file"
		return n
	}
	dir := realPath(cwd)
	chain := []string{dir}
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			chain = chain[:1] // no repository: the cwd alone
			break
		}
		d = parent
		chain = append(chain, d)
	}
	for _, d := range chain {
		for _, name := range copilotNames {
			if p := filepath.Join(d, name); isFile(p) {
				n.files[realPath(p)] = -1
			}
		}
		if p := filepath.Join(d, ".github", "copilot-instructions.md"); isFile(p) {
			n.files[realPath(p)] = -1
		}
	}
	read := strings.Split("Read|view", "|")
	n.attach = []attachRule{
		{tools: read, names: []string{"AGENTS.md"}},
		{tools: read, names: []string{"CLAUDE.md", "GEMINI.md"}, maybe: true},
	}
	return n
}

// CopilotHome is Copilot CLI's configuration directory: $COPILOT_HOME,
// else ~/.copilot.
func CopilotHome(env Env) string {
	if v := env.get("COPILOT_HOME"); v != "" {
		return v
	}
	return filepath.Join(env.Home, ".copilot")
}

// copilotFolderTrusted says whether Copilot CLI loads the hooks of
// project's .github/hooks: only in a folder the user trusted
// (docs.github.com/copilot/how-tos/copilot-cli/set-up-copilot-cli/
// configure-copilot-cli): one listed, or below one listed, in
// trustedFolders (older releases: trusted_folders) of
// $COPILOT_HOME/config.json, else ~/.copilot/config.json — a JSON file
// Copilot CLI heads with // comment lines; COPILOT_ALLOW_ALL=true trusts
// every folder. why says where the answer came from.
func copilotFolderTrusted(env Env, project string) (trusted bool, why string) {
	if env.get("COPILOT_ALLOW_ALL") == "true" {
		return true, "COPILOT_ALLOW_ALL=true"
	}
	path := filepath.Join(CopilotHome(env), "config.json")
	// A regular file only, bounded: a FIFO or a huge file there is no
	// trust list, never a hang.
	data, err := fsx.ReadRegular(path, 4<<20)
	if err != nil {
		return false, "no readable " + path
	}
	var b strings.Builder
	for line := range strings.Lines(string(data)) {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			b.WriteString(line)
		}
	}
	var cfg struct {
		Trusted []string `json:"trustedFolders"`
		Legacy  []string `json:"trusted_folders"`
	}
	if json.Unmarshal([]byte(b.String()), &cfg, json.RejectUnknownMembers(false), jsontext.AllowDuplicateNames(true)) != nil {
		return false, path + " is not JSON"
	}
	real := realPath(project)
	for _, f := range append(cfg.Trusted, cfg.Legacy...) {
		if f != "" && (within(project, f) || within(real, realPath(f))) {
			return true, "trustedFolders of " + path
		}
	}
	return false, "not in trustedFolders of " + path
}

// copilotTrustProblem says why a project-scope hook will not run in an
// untrusted folder, and how to trust it.
func copilotTrustProblem(project, why string) string {
	return "the folder " + project + " is not trusted (" + why + "): Copilot CLI loads a repository's .github/hooks only in a trusted folder (copilot in that folder, then its trust prompt: this and future sessions; headless: COPILOT_ALLOW_ALL=true)"
}
