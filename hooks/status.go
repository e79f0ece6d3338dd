package hooks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Status is what `lineage hook status` says about one harness.
type Status struct {
	Harness string `json:"harness"`
	// Version is the harness version found ("" when none).
	Version string `json:"version"`
	// Installs are lineage's hook entries found in the harness's settings
	// files, one per file.
	Installs []Installed `json:"installs"`
	// NativeNames are the file names the harness loads by itself; How
	// says how lineage found out (or that it cannot tell).
	NativeNames []string `json:"nativeNames"`
	Known       bool     `json:"known"`
	How         string   `json:"how"`
	// WillRun: at least one install, and every install will run.
	WillRun bool `json:"willRun"`
	// Handoff is the handoff pending for the harness's next session start
	// in the project (lineage handoff --to), nil for none.
	Handoff *PendingHandoff `json:"handoff,omitempty"`
}

// PendingHandoff is a handoff waiting for a session start: from which
// session's tract and commit, recorded as which tract, until when.
type PendingHandoff struct {
	Session string    `json:"session"`
	Tract   string    `json:"tract"`
	At      string    `json:"at"`
	Project string    `json:"project"`
	Expires time.Time `json:"expires"`
}

// Installed is lineage's hook in one settings file.
type Installed struct {
	Scope string `json:"scope"`
	File  string `json:"file"`
	// Events are the hook events lineage's command is installed for.
	Events  []string `json:"events"`
	Command string   `json:"command"`
	// Program is the command's program; ProgramFound whether it exists
	// (a path) or is on PATH (a bare name).
	Program      string `json:"program"`
	ProgramFound bool   `json:"programFound"`
	// FileNames are the names the hook resolves (its --file-names, else
	// AGENTS.md).
	FileNames []string `json:"fileNames"`
	// HooksEnabled is false when the harness's settings turn hooks off.
	HooksEnabled bool `json:"hooksEnabled"`
	// Trusted is set for a harness that runs only hooks the user trusted:
	// Codex CLI, whether its config.toml trusts lineage's command on every
	// event it is installed for (the hash Codex keeps matches this
	// command); Gemini CLI and Copilot CLI at project scope, whether the
	// folder is trusted.
	Trusted *bool `json:"trusted,omitzero"`
	WillRun bool  `json:"willRun"`
	// Records: the command records sessions (--record, see
	// [Flags.Record]).
	Records bool `json:"records,omitzero"`
	// Problems say why the hook will not run.
	Problems []string `json:"problems"`
}

// HookStatus reports h's installs in the user scope and the project scope
// of project (and Claude Code's local scope), whether each will run, and
// what the hook sends at a start in project.
func HookStatus(h *Harness, env Env, project string) Status {
	n := NativeView(h, project, env)
	if h != Claude {
		n.Version = harnessVersion(h, env)
	}
	st := Status{Harness: h.Name, Version: n.Version, NativeNames: n.Names, Known: n.Known, How: n.How, Installs: []Installed{}}
	if st.NativeNames == nil {
		st.NativeNames = []string{}
	}
	scopes := []string{ScopeUser, ScopeProject}
	if h == Claude {
		scopes = append(scopes, ScopeLocal)
	}
	for _, scope := range scopes {
		path, err := h.SettingsPath(scope, env, project)
		if err != nil {
			continue
		}
		if in, ok := h.installedIn(path, env); ok {
			in.Scope = scope
			if h == Gemini && scope == ScopeProject {
				trusted, why := geminiFolderTrusted(env, project)
				in.Trusted = &trusted
				if !trusted {
					in.Problems = append(in.Problems, geminiTrustProblem(project, why))
					in.WillRun = false
				}
			}
			if h == Copilot && scope == ScopeProject {
				trusted, why := copilotFolderTrusted(env, project)
				in.Trusted = &trusted
				if !trusted {
					in.Problems = append(in.Problems, copilotTrustProblem(project, why))
					in.WillRun = false
				}
			}
			st.Installs = append(st.Installs, in)
		}
	}
	st.WillRun = len(st.Installs) > 0
	for _, in := range st.Installs {
		st.WillRun = st.WillRun && in.WillRun
	}
	return st
}

// settingsDoc is what lineage reads of a harness's settings file for its
// status.
type settingsDoc struct {
	Hooks map[string][]struct {
		// Command is a flat entry's (Cursor).
		Command string
		Hooks   []struct{ Command string }
	} `json:"hooks"`
	DisableAllHooks bool `json:"disableAllHooks"`
	HooksConfig     struct {
		Enabled *bool `json:"enabled"`
	} `json:"hooksConfig"`
}

// installedIn finds lineage's hook commands in the settings file at path.
func (h *Harness) installedIn(path string, env Env) (Installed, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Installed{}, false
	}
	var doc settingsDoc
	in := Installed{File: path, HooksEnabled: true, Events: []string{}, FileNames: []string{"AGENTS.md"}, Problems: []string{}}
	if h == Opencode {
		// A plugin file, not a settings file: lineage's when it holds the
		// marker; it runs on the plugin hooks it defines.
		in.Command, in.Events = opencodeInstalled(data), slices.Clone(opencodeEvents)
	} else if json.Unmarshal(data, &doc, json.RejectUnknownMembers(false), jsontext.AllowDuplicateNames(true), json.MatchCaseInsensitiveNames(true)) != nil {
		return Installed{}, false
	} else {
		in.Command, in.Events = h.ourCommand(doc)
	}
	if in.Command == "" {
		return Installed{}, false
	}
	in.Program, _ = firstWord(in.Command)
	in.ProgramFound = programFound(in.Program, env)
	if names := fileNamesFlag(in.Command); names != nil {
		in.FileNames = names
	}
	in.Records = slices.Contains(strings.Fields(in.Command), "--record")
	switch h {
	case Claude, Copilot:
		in.HooksEnabled = !doc.DisableAllHooks
	case Gemini:
		in.HooksEnabled = doc.HooksConfig.Enabled == nil || *doc.HooksConfig.Enabled
	case Codex:
		cfgPath := filepath.Join(CodexHome(env), "config.toml")
		in.HooksEnabled = !readCodexConfig(cfgPath).hooksOff
		trusted, problems := codexTrust(cfgPath, path, in.Command)
		in.Trusted = &trusted
		in.Problems = append(in.Problems, problems...)
	}
	if !in.ProgramFound {
		in.Problems = append(in.Problems, "program "+in.Program+" not found (moved or removed? run 'lineage hook install "+h.Name+"' again)")
	}
	if !in.HooksEnabled {
		in.Problems = append(in.Problems, h.Title+"'s settings turn hooks off")
	}
	in.WillRun = len(in.Problems) == 0
	return in, true
}

// ourCommand is lineage's hook command in doc (the first found, in event
// order) and the events that run it, sorted; "" when there is none.
func (h *Harness) ourCommand(doc settingsDoc) (command string, events []string) {
	events = []string{}
	names := make([]string, 0, len(doc.Hooks))
	for e := range doc.Hooks {
		names = append(names, e)
	}
	slices.Sort(names)
	for _, event := range names {
		for _, g := range doc.Hooks[event] {
			cmds := make([]string, 0, len(g.Hooks)+1)
			if h.Flat && g.Command != "" {
				cmds = append(cmds, g.Command)
			}
			for _, c := range g.Hooks {
				cmds = append(cmds, c.Command)
			}
			for _, c := range cmds {
				if h.isOurs(c, "") || command != "" && c == command {
					command = c
					if !slices.Contains(events, event) {
						events = append(events, event)
					}
				}
			}
		}
	}
	return command, events
}

// programFound reports whether the hook's program is there: a path as
// given, else a name on the hook's PATH.
func programFound(program string, env Env) bool {
	if strings.ContainsAny(program, `/\`) {
		fi, err := os.Stat(program)
		return err == nil && !fi.IsDir()
	}
	return env.lookPath(program) != ""
}

// fileNamesFlag is the value of the command's --file-names flag, split at
// commas; nil when it has none.
func fileNamesFlag(command string) []string {
	var names []string
	f := strings.Fields(command)
	for i, w := range f {
		if w == "--file-names" && i+1 < len(f) {
			names = strings.Split(strings.Trim(f[i+1], `'"`), ",")
		}
	}
	return names
}
