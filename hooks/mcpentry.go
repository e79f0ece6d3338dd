package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// MCPServerName is the name lineage's MCP server entry has in a harness's
// configuration.
const MCPServerName = "lineage"

// MCPConfigPath is the file a harness reads MCP servers from at scope:
// Claude Code's user scope is the file `claude mcp add --scope user` writes
// ($CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json), its project scope
// <project>/.mcp.json; Gemini CLI its settings.json (user, project); Codex
// CLI <codex home>/config.toml (user) and <project>/.codex/config.toml.
func (h *Harness) MCPConfigPath(scope string, env Env, project string) (string, error) {
	switch {
	case h == Claude && scope == ScopeUser:
		if v := env.get("CLAUDE_CONFIG_DIR"); v != "" {
			return filepath.Join(v, ".claude.json"), nil
		}
		if env.Home == "" {
			return "", errors.New("no home directory (HOME, or USERPROFILE on Windows, is not set)")
		}
		return filepath.Join(env.Home, ".claude.json"), nil
	case h == Claude && scope == ScopeProject:
		return filepath.Join(project, ".mcp.json"), nil
	case h == Claude:
		return "", fmt.Errorf("%s MCP servers: scope %q is not supported here (use user or project)", h.Title, scope)
	case h == Codex && scope == ScopeUser:
		return filepath.Join(CodexHome(env), "config.toml"), nil
	case h == Codex && scope == ScopeProject:
		return filepath.Join(project, ".codex", "config.toml"), nil
	case scope == ScopeUser || scope == ScopeProject:
		return h.SettingsPath(scope, env, project)
	}
	return "", fmt.Errorf("%s has no %q scope for MCP servers (use user or project)", h.Title, scope)
}

// InstallMCP returns the configuration file's bytes with lineage's MCP
// server entry running program (an absolute path, not shell-quoted: the
// harnesses start MCP servers without a shell) with args, keeping every
// other byte. An entry that is already as it would be written is left
// alone; another "lineage" entry is replaced. envVars are the variables
// the server reads: Codex CLI starts MCP servers with a fixed short
// environment (HOME, PATH, USER, … — no XDG_STATE_HOME, no LINEAGE_*), so
// its entry lists them in env_vars for Codex to pass on when they are set.
// Claude Code and Gemini CLI pass their own environment on.
func (h *Harness) InstallMCP(data []byte, program string, args, envVars []string) ([]byte, error) {
	if h == Codex {
		return installMCPToml(data, program, args, envVars)
	}
	out := bytes.Clone(data)
	if len(bytes.TrimSpace(out)) == 0 {
		out = []byte("{}\n")
	}
	type entry struct {
		Type    string   `json:"type,omitempty"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	e := entry{Command: program, Args: args}
	if h == Claude {
		e.Type = "stdio"
	}
	want, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	doc, err := parseDoc(out)
	if err != nil {
		return nil, err
	}
	servers := doc.member("mcpServers")
	if servers != nil && servers.kind != '{' {
		return nil, errors.New(`"mcpServers" is not an object`)
	}
	if cur := doc.path("mcpServers", MCPServerName); cur != nil {
		v := jsontext.Value(bytes.Clone(out[cur.start:cur.end]))
		if v.Compact() == nil && bytes.Equal(v, want) {
			return out, nil
		}
		out = servers.remove(out, servers.memberIndex(MCPServerName))
		if doc, err = parseDoc(out); err != nil {
			return nil, err
		}
		servers = doc.member("mcpServers")
	}
	style := detectStyle(out)
	if servers == nil {
		return doc.insert(out, style, "mcpServers", map[string]entry{MCPServerName: e})
	}
	return servers.insert(out, style, MCPServerName, e)
}

// UninstallMCP returns the file's bytes without lineage's MCP server entry
// (an "mcpServers" object left empty goes too).
func (h *Harness) UninstallMCP(data []byte) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return data, nil
	}
	if h == Codex {
		return uninstallMCPToml(data), nil
	}
	doc, err := parseDoc(data)
	if err != nil {
		return nil, err
	}
	servers := doc.member("mcpServers")
	if servers == nil || servers.kind != '{' || servers.member(MCPServerName) == nil {
		return data, nil
	}
	if len(servers.members) == 1 {
		return doc.remove(data, doc.memberIndex("mcpServers")), nil
	}
	return servers.remove(data, servers.memberIndex(MCPServerName)), nil
}

const tomlHeader = "[mcp_servers." + MCPServerName + "]"

// installMCPToml writes Codex CLI's [mcp_servers.lineage] table at the end
// of config.toml (replacing one that is there), every other line kept.
// envVars go in its env_vars list, sorted.
func installMCPToml(data []byte, program string, args, envVars []string) ([]byte, error) {
	table := tomlHeader + "\ncommand = " + strconv.Quote(program) + "\nargs = " + tomlArray(args) + "\n"
	if len(envVars) > 0 {
		table += "env_vars = " + tomlArray(slices.Sorted(slices.Values(envVars))) + "\n"
	}
	if strings.Contains(string(data), "\n"+table) || strings.HasPrefix(string(data), table) {
		return data, nil
	}
	out := uninstallMCPToml(data)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	if len(bytes.TrimSpace(out)) > 0 {
		out = append(out, '\n')
	}
	return append(out, table...), nil
}

// tomlArray is a TOML array of basic strings.
func tomlArray(list []string) string {
	quoted := make([]string, len(list))
	for i, a := range list {
		quoted[i] = strconv.Quote(a)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// uninstallMCPToml removes the [mcp_servers.lineage] table (and its
// sub-tables) up to the next table header, with the blank line before it.
func uninstallMCPToml(data []byte) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	var out []string
	skip := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			skip = t == tomlHeader || strings.HasPrefix(t, "[mcp_servers."+MCPServerName+".")
			if skip && len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
				out = out[:len(out)-1]
			}
		}
		if !skip {
			out = append(out, l)
		}
	}
	return []byte(strings.Join(out, ""))
}
