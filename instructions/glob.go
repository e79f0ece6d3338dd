package instructions

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Bounds of one pattern, checked before its braces are expanded, so that
// a rule file cannot make a load slow or large: a pattern of at most
// MaxPatternBytes with at most maxBraceGroups "{…}" groups nested at most
// maxBraceDepth deep, expanding to at most maxBraceAlternatives patterns.
// Expansion then copies at most maxBraceGroups strings of
// MaxPatternBytes per alternative.
const (
	MaxPatternBytes      = 1024
	maxBraceGroups       = 32
	maxBraceDepth        = 8
	maxBraceAlternatives = 256
)

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
	if err := checkPattern(pattern); err != nil {
		return glob{}, err
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

// checkPattern refuses a pattern over the bounds above before anything is
// expanded: its size, its brace groups, their nesting, and the number of
// patterns the braces stand for (counted, not expanded).
func checkPattern(p string) error {
	if len(p) > MaxPatternBytes {
		return fmt.Errorf("pattern of %d bytes: the limit is %d", len(p), MaxPatternBytes)
	}
	short := p
	if len(short) > 40 {
		short = short[:40] + "…"
	}
	// counts[d] is the number of patterns the group open at depth d
	// stands for so far: the sum over its finished alternatives plus the
	// product over the groups of the alternative being read.
	type level struct{ sum, prod int }
	stack := []level{{sum: 0, prod: 1}}
	groups := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			groups++
			if groups > maxBraceGroups {
				return fmt.Errorf("pattern %s has more than %d brace groups", strconv.Quote(short), maxBraceGroups)
			}
			if len(stack) > maxBraceDepth {
				return fmt.Errorf("pattern %s nests braces more than %d deep", strconv.Quote(short), maxBraceDepth)
			}
			stack = append(stack, level{sum: 0, prod: 1})
		case ',':
			if len(stack) > 1 {
				top := &stack[len(stack)-1]
				top.sum, top.prod = top.sum+top.prod, 1
			}
		case '}':
			if len(stack) == 1 {
				continue
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			under := &stack[len(stack)-1]
			under.prod *= top.sum + top.prod
			if under.prod > maxBraceAlternatives || top.sum+top.prod > maxBraceAlternatives {
				return fmt.Errorf("pattern %s expands to more than %d alternatives", strconv.Quote(short), maxBraceAlternatives)
			}
		}
	}
	return nil
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

// Glob is a compiled path pattern as rule files' globs are: "/"-separated
// segments matched with [path.Match] (a "*" matches names starting with a
// dot too), a "**" segment for any number of segments, "{a,b}"
// alternatives, and the same bounds before anything is expanded.
type Glob struct{ g glob }

// CompileGlob checks and compiles pattern.
func CompileGlob(pattern string) (Glob, error) {
	g, err := compileGlob(pattern)
	return Glob{g}, err
}

// Match reports whether the "/"-separated relative path p matches.
func (g Glob) Match(p string) bool { return g.g.match(p) }
