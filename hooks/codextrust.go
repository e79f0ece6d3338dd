package hooks

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/instructions"
)

// Codex CLI runs a hook only when its config.toml trusts that exact hook:
// a [hooks.state."<hooks file>:<event>:<group>:<handler>"] table whose
// trusted_hash is the hash of the hook's normalized identity (Codex CLI
// 0.169, codex-rs/hooks/src/engine/discovery.rs command_hook_hash and
// codex-rs/config/src/fingerprint.rs version_for_toml): "sha256:" and the
// hex SHA-256 of the compact JSON, keys sorted, of {"event_name": the
// snake_case event, "matcher": the group's matcher (absent when none),
// "hooks": [{"type": "command", "command", "timeout": its timeout or 600
// (SessionEnd: 1, at most 3), "async", "statusMessage" when set}]}. A
// changed command (another binary path, other flags) has another hash:
// Codex skips it until the user trusts it again; enabled = false there
// turns it off.

// codexHookEntry is one handler of Codex's hooks.json as its hash reads it.
type codexHookEntry struct {
	Type          string  `json:"type"`
	Command       string  `json:"command"`
	Timeout       *uint64 `json:"timeout"`
	Async         bool    `json:"async"`
	StatusMessage *string `json:"statusMessage"`
}

type codexHooksFile struct {
	Hooks map[string][]struct {
		Matcher *string          `json:"matcher"`
		Hooks   []codexHookEntry `json:"hooks"`
	} `json:"hooks"`
}

// codexEventLabel is Codex's snake_case name of a hook event
// (PostToolUse → post_tool_use).
func codexEventLabel(event string) string {
	var b strings.Builder
	for i, r := range event {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codexHookHash is Codex's trust hash of handler e of a group with matcher
// on event.
func codexHookHash(event string, matcher *string, e codexHookEntry) string {
	label := codexEventLabel(event)
	timeout := uint64(600)
	if label == "session_end" {
		timeout = 1
	}
	if e.Timeout != nil {
		timeout = max(*e.Timeout, 1)
		if label == "session_end" {
			timeout = min(timeout, 3)
		}
	}
	if label == "user_prompt_submit" || label == "stop" {
		matcher = nil
	}
	h := map[string]any{"type": "command", "command": e.Command, "timeout": timeout, "async": e.Async}
	if e.StatusMessage != nil {
		h["statusMessage"] = *e.StatusMessage
	}
	id := map[string]any{"event_name": label, "hooks": []any{h}}
	if matcher != nil {
		id["matcher"] = *matcher
	}
	data, err := json.Marshal(id, json.Deterministic(true))
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// codexHookState is a [hooks.state."KEY"] table of config.toml.
type codexHookState struct {
	hash    string
	enabled *bool
}

// readCodexHookStates reads the [hooks.state."KEY"] tables of a
// config.toml (the form Codex writes), key → state.
func readCodexHookStates(path string) map[string]codexHookState {
	states := map[string]codexHookState{}
	f, err := os.Open(path)
	if err != nil {
		return states
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, instructions.MaxConfigBytes))
	sc.Buffer(nil, 1<<20)
	key := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			key = ""
			if rest, ok := strings.CutPrefix(line, "[hooks.state."); ok && strings.HasSuffix(rest, "]") {
				if k, ok := tomlKey(strings.TrimSpace(strings.TrimSuffix(rest, "]"))); ok {
					key = k
					states[key] = codexHookState{}
				}
			}
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		if key == "" || !ok {
			continue
		}
		st := states[key]
		switch strings.TrimSpace(name) {
		case "trusted_hash":
			if v, err := strconv.Unquote(strings.TrimSpace(val)); err == nil {
				st.hash = v
			}
		case "enabled":
			b := strings.TrimSpace(val) != "false"
			st.enabled = &b
		}
		states[key] = st
	}
	return states
}

// tomlKey is a quoted TOML key: a basic string ("…", escapes as Go's) or
// a literal one ('…', as written).
func tomlKey(q string) (string, bool) {
	if len(q) >= 2 && q[0] == '\'' && q[len(q)-1] == '\'' {
		return q[1 : len(q)-1], true
	}
	k, err := strconv.Unquote(q)
	return k, err == nil && strings.HasPrefix(q, `"`)
}

// codexTrust checks, for every event that runs command in the hooks file
// at hooksFile, Codex's trust entry in configPath: trusted is true when
// Codex runs lineage's hook on every one of them; problems say which
// events it skips and why.
func codexTrust(configPath, hooksFile, command string) (trusted bool, problems []string) {
	data, err := os.ReadFile(hooksFile)
	var doc codexHooksFile
	if err != nil || json.Unmarshal(data, &doc, json.RejectUnknownMembers(false)) != nil {
		return false, []string{"not trusted: Codex CLI skips it until you trust it (codex, then /hooks)"}
	}
	states := readCodexHookStates(configPath)
	var untrusted, modified, off, all []string
	events := make([]string, 0, len(doc.Hooks))
	for e := range doc.Hooks {
		events = append(events, e)
	}
	slices.Sort(events)
	for _, event := range events {
		for gi, g := range doc.Hooks[event] {
			for hi, e := range g.Hooks {
				if e.Command != command {
					continue
				}
				all = append(all, event)
				st, ok := states[fmt.Sprintf("%s:%s:%d:%d", hooksFile, codexEventLabel(event), gi, hi)]
				switch {
				case ok && st.enabled != nil && !*st.enabled:
					off = append(off, event)
				case !ok || st.hash == "":
					untrusted = append(untrusted, event)
				case st.hash != codexHookHash(event, g.Matcher, e):
					modified = append(modified, event)
				}
			}
		}
	}
	switch {
	case len(untrusted) > 0 && len(untrusted) == len(all):
		problems = append(problems, "not trusted: Codex CLI skips it until you trust it (codex, then /hooks)")
	case len(untrusted) > 0:
		problems = append(problems, "not trusted for "+strings.Join(untrusted, ", ")+": Codex CLI skips it there until you trust it (codex, then /hooks)")
	}
	if len(modified) > 0 {
		problems = append(problems, "trusted for another command on "+strings.Join(modified, ", ")+" (an earlier install): Codex CLI skips it until you trust this one (codex, then /hooks)")
	}
	if len(off) > 0 {
		problems = append(problems, "turned off in Codex CLI's /hooks for "+strings.Join(off, ", "))
	}
	return len(all) > 0 && len(problems) == 0, problems
}
