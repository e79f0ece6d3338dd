package hooks

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
)

// opencodePlugin is the plugin `hook install opencode` writes, with
// __COMMAND__ standing for the command it runs (a JSON array).
//
//go:embed opencode_plugin.js
var opencodePlugin string

// opencodeMarker is the line that makes a plugin file lineage's: install
// replaces only a file holding it, uninstall removes only such a file.
const opencodeMarker = "// lineage-hook-plugin: opencode"

// opencodeCommandPrefix opens the line of the plugin that holds its
// command.
const opencodeCommandPrefix = "const command = "

// ErrNotOurs is returned for a file at lineage's path that lineage did not
// write: install and uninstall leave it alone.
var ErrNotOurs = errors.New("not lineage's file")

// opencodeEvents are the opencode plugin hooks lineage's plugin uses
// (for hook status).
var opencodeEvents = []string{"event", "experimental.chat.system.transform", "experimental.session.compacting", "tool.execute.after"}

// isOpencodePlugin reports whether data is a plugin lineage wrote.
func isOpencodePlugin(data []byte) bool {
	for line := range strings.Lines(string(data)) {
		if strings.TrimRight(line, "\r\n") == opencodeMarker {
			return true
		}
	}
	return false
}

// opencodeArgv is the command the plugin runs: program's shell words, then
// "hook opencode" and the flags that are set.
func opencodeArgv(program string, f Flags) ([]string, error) {
	if program == "" {
		program = "lineage"
	}
	var argv []string
	for rest := program; strings.TrimSpace(rest) != ""; {
		var w string
		w, rest = firstWord(rest)
		argv = append(argv, w)
	}
	argv = append(argv, "hook", Opencode.Name)
	if f.Slug != "" {
		argv = append(argv, "--slug", f.Slug)
	}
	if f.FileNames != "" {
		argv = append(argv, "--file-names", f.FileNames)
	}
	if f.Config != "" {
		argv = append(argv, "--config", f.Config)
	}
	for _, w := range argv {
		if !utf8.ValidString(w) {
			return nil, fmt.Errorf("%q is not UTF-8 text: the plugin (JavaScript) cannot name it", w)
		}
	}
	if f.Record {
		return nil, errors.New("opencode keeps its sessions in its own database, not in a transcript file lineage reads: --record is for claude, gemini and codex")
	}
	return argv, nil
}

// installOpencode returns lineage's plugin file running program with f,
// for a file whose bytes are data (empty: missing). A file that is not
// lineage's is refused.
func installOpencode(data []byte, program string, f Flags) ([]byte, error) {
	if len(bytes.TrimSpace(data)) > 0 && !isOpencodePlugin(data) {
		return nil, fmt.Errorf("%w: it has no %q line; move it away (or pick another --scope) and install again", ErrNotOurs, opencodeMarker)
	}
	argv, err := opencodeArgv(program, f)
	if err != nil {
		return nil, err
	}
	cmd, err := json.Marshal(argv)
	if err != nil {
		return nil, err
	}
	return []byte(strings.Replace(opencodePlugin, "__COMMAND__", string(cmd), 1)), nil
}

// uninstallOpencode checks that data (the plugin file) is lineage's: the
// caller removes the file. nil data (a missing file) is nothing to do.
func uninstallOpencode(data []byte) error {
	if len(bytes.TrimSpace(data)) > 0 && !isOpencodePlugin(data) {
		return fmt.Errorf("%w: it has no %q line; left as it is", ErrNotOurs, opencodeMarker)
	}
	return nil
}

// opencodeInstalled reads the command of lineage's plugin file data: the
// words of its command line, shell-quoted; "" when data is not lineage's
// plugin or its command cannot be read.
func opencodeInstalled(data []byte) string {
	if !isOpencodePlugin(data) {
		return ""
	}
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), opencodeCommandPrefix)
		if !ok {
			continue
		}
		var argv []string
		if json.Unmarshal([]byte(rest), &argv) != nil || len(argv) == 0 {
			return ""
		}
		words := make([]string, len(argv))
		for i, w := range argv {
			words[i] = shellQuote(w)
		}
		return strings.Join(words, " ")
	}
	return ""
}

// OpencodePluginName is the file lineage's plugin is written to, in a
// plugins folder opencode loads.
const OpencodePluginName = "lineage.js"

// opencodePluginPath: opencode loads the plugins of
// <config dir>/plugins (user scope) and <project>/.opencode/plugins.
func opencodePluginPath(scope string, env Env, project string) (string, error) {
	switch scope {
	case ScopeUser:
		if env.Home == "" && env.get("XDG_CONFIG_HOME") == "" {
			return "", errors.New("no home directory (HOME, or USERPROFILE on Windows, is not set)")
		}
		return filepath.Join(opencodeConfigDir(env), "plugins", OpencodePluginName), nil
	case ScopeProject:
		return filepath.Join(project, ".opencode", "plugins", OpencodePluginName), nil
	case ScopeLocal:
		return "", fmt.Errorf("%s has no local settings scope (use user or project)", Opencode.Title)
	}
	return "", fmt.Errorf("unknown scope %q (want user, project or local)", scope)
}
