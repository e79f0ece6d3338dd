package hooks

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlineage/lineage/internal/fsx"
)

// Gemini CLI applies a project's settings (and so a project-scope hook)
// only in a trusted folder. As Gemini CLI 0.61 decides it
// (packages/cli/src/config/trustedFolders.ts): GEMINI_RESTRICTED_MODE=true
// or GEMINI_CLI_TRUST_WORKSPACE=false distrust every folder,
// GEMINI_CLI_TRUST_WORKSPACE=true trusts every one, a user setting
// security.folderTrust.enabled = false trusts every one; else the folder
// is trusted by the longest rule of trustedFolders.json
// ($GEMINI_CLI_TRUSTED_FOLDERS_PATH, else <Gemini home>/.gemini/) whose
// path holds it (TRUST_FOLDER: that folder, TRUST_PARENT: its parent,
// DO_NOT_TRUST: not trusted), real paths compared; no rule: not trusted.

// geminiFolderTrusted reports whether Gemini CLI trusts dir, and when not,
// why.
func geminiFolderTrusted(env Env, dir string) (bool, string) {
	switch {
	case env.get("GEMINI_RESTRICTED_MODE") == "true":
		return false, "GEMINI_RESTRICTED_MODE=true"
	case env.get("GEMINI_CLI_TRUST_WORKSPACE") == "false":
		return false, "GEMINI_CLI_TRUST_WORKSPACE=false"
	case env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
		return true, ""
	}
	if user, err := Gemini.SettingsPath(ScopeUser, env, dir); err == nil {
		var doc struct {
			Security struct {
				FolderTrust struct {
					Enabled *bool `json:"enabled"`
				} `json:"folderTrust"`
			} `json:"security"`
		}
		if data, err := os.ReadFile(user); err == nil && json.Unmarshal(data, &doc, json.RejectUnknownMembers(false), jsontext.AllowDuplicateNames(true)) == nil &&
			doc.Security.FolderTrust.Enabled != nil && !*doc.Security.FolderTrust.Enabled {
			return true, ""
		}
	}
	path := env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if path == "" {
		path = filepath.Join(GeminiHome(env), ".gemini", "trustedFolders.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false, "no trust rule for it (" + path + " is missing)"
	}
	var rules map[string]string
	if err := json.Unmarshal(data, &rules, jsontext.AllowDuplicateNames(true)); err != nil {
		return false, path + " cannot be read: " + err.Error()
	}
	real := realPath(dir)
	best, level := -1, ""
	for rule, l := range rules {
		eff := rule
		if l == "TRUST_PARENT" {
			eff = filepath.Dir(rule)
		}
		if fsx.Contains(realPath(eff), real) && len(rule) > best {
			best, level = len(rule), l
		}
	}
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return true, ""
	case "DO_NOT_TRUST":
		return false, "marked DO_NOT_TRUST in " + path
	}
	return false, "no trust rule for it in " + path
}

// geminiTrustProblem is the status problem of a project-scope hook in a
// folder Gemini CLI does not trust.
func geminiTrustProblem(dir, why string) string {
	return "the folder " + dir + " is not trusted (" + strings.TrimSpace(why) + "): Gemini CLI ignores its project settings and their hooks there until you trust it (gemini, then the trust dialog; headless: GEMINI_CLI_TRUST_WORKSPACE=true)"
}
