package instructions

import (
	"fmt"
	"slices"
	"strings"
)

// The rule dialects lineage reads: Claude Code's "paths" (.claude/rules),
// Cursor's "globs" and "alwaysApply" (.cursor/rules/*.mdc, whose
// "description" lets Cursor's agent pick a rule), and GitHub Copilot's
// "applyTo" (.github/instructions/*.instructions.md). A rule that names
// globs loads when a touched path matches them; one that says nothing of
// its scope loads with the chain — except a .mdc file, which Cursor
// applies only with "alwaysApply: true".
// knownRuleKey reports whether k is a front matter key lineage reads:
// paths, globs, applyTo and alwaysApply scope a rule; description, name,
// title, tags and excludeAgent describe it.
func knownRuleKey(k string) bool {
	switch k {
	case "paths", "globs", "applyTo", "alwaysApply", "description", "name", "title", "tags", "excludeAgent":
		return true
	}
	return false
}

// scope is what a rule's front matter says about when it applies.
type scope struct {
	// always: the rule loads with the chain.
	always bool
	// patterns are the globs a touched path must match; key is the front
	// matter key they came from.
	patterns []string
	key      string
}

// ruleScope reads the scope of a rule from its front matter fm. An
// unknown key is an error, never "always on": a key lineage does not know
// may be one that scopes the rule.
func ruleScope(fm map[string]any, mdc bool) (scope, error) {
	keys := make([]string, 0, len(fm))
	for k := range fm {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !knownRuleKey(k) {
			return scope{}, fmt.Errorf("front matter: unknown key %q (lineage reads paths, globs, applyTo and alwaysApply): the rule is not loaded, since it may scope the rule", k)
		}
	}
	var sc scope
	if v, ok := fm["alwaysApply"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return scope{}, fmt.Errorf("front matter: alwaysApply: want true or false")
		}
		if b {
			return scope{always: true}, nil
		}
	}
	for _, k := range []string{"paths", "globs", "applyTo"} {
		v, ok := fm[k]
		if !ok {
			continue
		}
		pats, err := globList(k, v)
		if err != nil {
			return scope{}, err
		}
		if sc.key == "" {
			sc.key = k
		}
		sc.patterns = append(sc.patterns, pats...)
	}
	if len(sc.patterns) > maxRuleAlternatives {
		return scope{}, fmt.Errorf("front matter: %s: %d patterns, the limit is %d", sc.key, len(sc.patterns), maxRuleAlternatives)
	}
	if slices.Contains(sc.patterns, "**") {
		// Every file (Copilot's applyTo: "**"): the rule always applies.
		return scope{always: true}, nil
	}
	_, alwaysKey := fm["alwaysApply"]
	if sc.key == "" && !mdc && !alwaysKey {
		return scope{always: true}, nil
	}
	if sc.key == "" {
		sc.key = "alwaysApply"
	}
	return sc, nil
}

// splitPatterns splits a list of globs written in one string at its
// commas outside braces ("*.{ts,tsx}" stays one), trimming spaces.
func splitPatterns(s string) []string {
	var out []string
	depth, start := 0, 0
	add := func(p string) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth = max(0, depth-1)
		case ',':
			if depth == 0 {
				add(s[start:i])
				start = i + 1
			}
		}
	}
	add(s[start:])
	return out
}
