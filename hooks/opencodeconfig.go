package hooks

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/internal/jsonc"
)

// opencode's "instructions" setting lists more files it puts in the system
// prompt, as paths or globs (checked in the 1.18.33 program: its Config
// and Instruction services). The lists of every config file that applies
// are joined (duplicates dropped); each entry is
//   - a URL (http:// or https://): fetched by opencode, never a file here;
//   - "~/…": under the home directory;
//   - an absolute path: its base name globbed in its directory;
//   - else a glob tried from the working directory and from each directory
//     above it up to the worktree root (from opencode's config directory
//     alone when OPENCODE_DISABLE_PROJECT_CONFIG is set), dot files
//     included.
// Config files are JSON with comments (jsonc-parser), and "{env:NAME}" in
// their text stands for the variable's value.

// opencodeConfigFiles are the config files opencode reads for a session
// in cwd below root ("" for none: up to the filesystem root), in no
// particular order (only their joined instructions matter here): its
// config directory's config.json, opencode.json and opencode.jsonc,
// $OPENCODE_CONFIG, the opencode.json(c) of each directory from cwd up to
// root and of the .opencode folders there, ~/.opencode,
// $OPENCODE_CONFIG_DIR and the managed config directory.
func opencodeConfigFiles(cwd, root string, env Env) []string {
	dir := opencodeConfigDir(env)
	files := []string{filepath.Join(dir, "config.json"), filepath.Join(dir, "opencode.json"), filepath.Join(dir, "opencode.jsonc")}
	if p := env.get("OPENCODE_CONFIG"); p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		files = append(files, p)
	}
	both := func(d string) {
		files = append(files, filepath.Join(d, "opencode.json"), filepath.Join(d, "opencode.jsonc"))
	}
	if !envTrue(env, "OPENCODE_DISABLE_PROJECT_CONFIG") {
		for _, d := range upTo(cwd, root) {
			both(d)
			both(filepath.Join(d, ".opencode"))
		}
	}
	if env.Home != "" {
		both(filepath.Join(env.Home, ".opencode"))
	}
	if d := env.get("OPENCODE_CONFIG_DIR"); d != "" && filepath.IsAbs(d) {
		both(d)
	}
	both(opencodeManagedDir(env))
	return files
}

// opencodeManagedDir is where an administrator puts opencode config that
// applies to every user.
func opencodeManagedDir(env Env) string {
	if d := env.get("OPENCODE_TEST_MANAGED_CONFIG_DIR"); d != "" {
		return d
	}
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/opencode"
	case "windows":
		pd := env.get("ProgramData")
		if pd == "" {
			pd = `C:\ProgramData`
		}
		return filepath.Join(pd, "opencode")
	}
	return "/etc/opencode"
}

// upTo lists dir and each directory above it up to root (up to the
// filesystem root when root is "" or not above dir).
func upTo(dir, root string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		out = append(out, d)
		if d == root || filepath.Dir(d) == d {
			return out
		}
	}
}

// opencodeInstructions joins the instructions setting of every config file
// opencode reads for a session in cwd, and of $OPENCODE_CONFIG_CONTENT. A
// file that is missing, too large or not JSON with comments adds nothing
// (opencode then refuses to start, so nothing is lost).
func opencodeInstructions(cwd, root string, env Env) []string {
	var texts [][]byte
	for _, p := range opencodeConfigFiles(cwd, root, env) {
		if data, err := fsx.ReadRegular(p, instructions.MaxConfigBytes); err == nil {
			texts = append(texts, data)
		}
	}
	if c := env.get("OPENCODE_CONFIG_CONTENT"); c != "" {
		texts = append(texts, []byte(c))
	}
	var out []string
	for _, t := range texts {
		for _, e := range parseOpencodeInstructions(t, env) {
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	return out
}

// parseOpencodeInstructions reads the string entries of one config text's
// instructions setting; none when the text is not JSON with comments.
func parseOpencodeInstructions(text []byte, env Env) []string {
	std, err := jsonc.Standard([]byte(substituteEnv(string(text), env)))
	if err != nil {
		return nil
	}
	var c struct {
		Instructions []jsontext.Value `json:"instructions"`
	}
	if json.Unmarshal(std, &c, json.RejectUnknownMembers(false), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) != nil {
		return nil
	}
	var out []string
	for _, v := range c.Instructions {
		var s string
		if json.Unmarshal(v, &s) == nil && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// substituteEnv replaces each "{env:NAME}" in s with the variable's value
// ("" when it is unset), as opencode does before it parses a config.
func substituteEnv(s string, env Env) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "{env:")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 || j == len("{env:") {
			b.WriteString(s[:i+len("{env:")])
			s = s[i+len("{env:"):]
			continue
		}
		b.WriteString(s[:i])
		if env.Lookup != nil {
			v, _ := env.Lookup(s[i+len("{env:") : i+j])
			b.WriteString(v)
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// opencodeGlobs compiles the instructions entries into globs over whole
// slash paths ("C:/repo/docs/*.md" on Windows, "repo/docs/*.md" for
// /repo/docs/*.md): a relative entry once per directory it is tried from.
// An entry that is no valid glob (or over the rule globs' bounds) is
// skipped.
func opencodeGlobs(entries []string, cwd, root string, env Env) []instructions.Glob {
	dirs := upTo(cwd, root)
	if envTrue(env, "OPENCODE_DISABLE_PROJECT_CONFIG") {
		dirs = []string{opencodeConfigDir(env)}
	}
	var out []instructions.Glob
	add := func(full string) {
		if g, err := instructions.CompileGlob(slashPath(full)); err == nil {
			out = append(out, g)
		}
	}
	for _, e := range entries {
		if strings.HasPrefix(e, "https://") || strings.HasPrefix(e, "http://") {
			continue
		}
		if rest, ok := strings.CutPrefix(e, "~/"); ok && env.Home != "" {
			e = filepath.Join(env.Home, rest)
		}
		if filepath.IsAbs(e) {
			add(e)
			continue
		}
		for _, d := range dirs {
			add(filepath.Join(d, e))
		}
	}
	return out
}

// slashPath is an absolute path as the globs above match it.
func slashPath(p string) string {
	return strings.TrimPrefix(filepath.ToSlash(filepath.Clean(p)), "/")
}
