package instructions

import (
	"errors"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// maxBraceAlternatives bounds what one pattern's braces expand to.
const maxBraceAlternatives = 256

// glob is a compiled path pattern: "/"-separated segments matched with
// [path.Match], where a "**" segment matches any number of segments (none
// too), and "{a,b}" alternatives (nestable) expanded beforehand.
type glob struct {
	text string
	alts [][]string
	// abs: an exclude glob matched against absolute paths.
	abs bool
}

// compileGlob checks and compiles a pattern.
func compileGlob(pattern string) (glob, error) {
	if strings.TrimSpace(pattern) == "" {
		return glob{}, errors.New("empty pattern")
	}
	expanded, err := expandBraces(pattern)
	if err != nil {
		return glob{}, err
	}
	g := glob{text: pattern}
	for _, e := range expanded {
		segs := strings.Split(strings.Trim(e, "/"), "/")
		for _, s := range segs {
			if s == "**" {
				continue
			}
			if _, err := path.Match(s, ""); err != nil {
				return glob{}, errors.New("bad pattern " + strconv.Quote(pattern))
			}
		}
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

// match reports whether the "/"-separated path p (no leading slash) matches.
func (g glob) match(p string) bool {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for _, a := range g.alts {
		if matchSegs(a, segs) {
			return true
		}
	}
	return false
}

// matchSegs matches segments against a pattern's segments, "**" taking
// any number of them. It is a table over (pattern, path) positions, so a
// pattern full of "**" costs len(pat)×len(segs), never an exponential
// backtrack.
func matchSegs(pat, segs []string) bool {
	// ok[j] is whether pat[i:] matches segs[j:], for the current i, going
	// from the end of the pattern to its start.
	ok := make([]bool, len(segs)+1)
	ok[len(segs)] = true
	for i := len(pat) - 1; i >= 0; i-- {
		next := make([]bool, len(segs)+1)
		if pat[i] == "**" {
			next[len(segs)] = ok[len(segs)]
			for j := len(segs) - 1; j >= 0; j-- {
				next[j] = ok[j] || next[j+1]
			}
		} else {
			for j := len(segs) - 1; j >= 0; j-- {
				if ok[j+1] {
					m, _ := path.Match(pat[i], segs[j])
					next[j] = m
				}
			}
		}
		ok = next
	}
	return ok[0]
}

// expandBraces expands "{a,b}" alternatives, innermost first.
func expandBraces(p string) ([]string, error) {
	open := -1
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			open = i
		case '}':
			if open < 0 {
				continue
			}
			var out []string
			for _, alt := range strings.Split(p[open+1:i], ",") {
				more, err := expandBraces(p[:open] + alt + p[i+1:])
				if err != nil {
					return nil, err
				}
				out = append(out, more...)
				if len(out) > maxBraceAlternatives {
					return nil, errors.New("pattern " + strconv.Quote(p) + " expands to too many alternatives")
				}
			}
			return out, nil
		}
	}
	return []string{p}, nil
}

// relSlash returns p relative to base with "/" separators, ok false when p
// is not inside base.
func relSlash(base, p string) (string, bool) {
	if !within(base, p) {
		return "", false
	}
	rest, err := filepath.Rel(base, p)
	if err != nil {
		return "", false
	}
	if rest == "." {
		rest = ""
	}
	return filepath.ToSlash(rest), true
}

func fromSlash(p string) string { return filepath.FromSlash(p) }
