package deptest

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Map is the package map docs/architecture.md documents: the module's
// packages in import order (a package imports only packages below it) and
// the two wings that never import each other.
type Map struct {
	// Packages are the module's packages, relative to the module, top
	// (the importers) first.
	Packages []string
	// Wings name the packages of each wing (a pattern may end in /...).
	Wings map[string][]string
	// Meet are the packages where the wings meet (patterns as in Wings).
	Meet []string
}

// The labels of the wings block of docs/architecture.md.
const (
	mapHeading   = "## Package map"
	wingsHeading = "## Two wings"
	wingSuffix   = " wing"
	meetLabel    = "meet in"
)

// ParseMap reads the map from docs/architecture.md (named name in errors):
// in the first code block after "## Package map", every line that does not
// start with a space names a package in its first word; in the first code
// block after "## Two wings", lines "NAME wing  a, b, c" and "meet in  d, e"
// (two or more spaces after the label; a line starting with spaces
// continues the list above it).
func ParseMap(name string, doc []byte) (Map, error) {
	var m Map
	pkgs, line, err := codeBlock(doc, mapHeading)
	if err != nil {
		return m, fmt.Errorf("%s: %w", name, err)
	}
	seen := map[string]int{}
	for i, l := range pkgs {
		if l == "" || l[0] == ' ' {
			continue
		}
		p := strings.Fields(l)[0]
		if first, dup := seen[p]; dup {
			return m, fmt.Errorf("%s:%d: %s is listed already on line %d", name, line+i, p, first)
		}
		seen[p] = line + i
		m.Packages = append(m.Packages, p)
	}
	wings, line, err := codeBlock(doc, wingsHeading)
	if err != nil {
		return m, fmt.Errorf("%s: %w", name, err)
	}
	m.Wings = map[string][]string{}
	wing, labelled := "", false // the wing the lines add to; "" with labelled: meet in
	for i, l := range wings {
		if strings.TrimSpace(l) == "" {
			continue
		}
		items := l
		if l[0] != ' ' {
			label, rest, ok := strings.Cut(l, "  ")
			if !ok {
				return m, fmt.Errorf("%s:%d: want a label, two spaces and packages, got %q", name, line+i, l)
			}
			w, isWing := strings.CutSuffix(label, wingSuffix)
			switch {
			case isWing && m.Wings[w] != nil:
				return m, fmt.Errorf("%s:%d: wing %s is listed already", name, line+i, w)
			case isWing:
				m.Wings[w] = []string{}
			case label != meetLabel:
				return m, fmt.Errorf("%s:%d: label %q is neither \"NAME wing\" nor %q", name, line+i, label, meetLabel)
			}
			wing, labelled, items = w, true, rest
			if !isWing {
				wing = ""
			}
		} else if !labelled {
			return m, fmt.Errorf("%s:%d: a continuation line before any label", name, line+i)
		}
		for it := range strings.SplitSeq(items, ",") {
			if it = strings.TrimSpace(it); it == "" {
				continue
			} else if wing != "" {
				m.Wings[wing] = append(m.Wings[wing], it)
			} else {
				m.Meet = append(m.Meet, it)
			}
		}
	}
	return m, nil
}

// codeBlock returns the lines of the first fenced code block after the
// line heading, and the 1-based line number of its first line.
func codeBlock(doc []byte, heading string) ([]string, int, error) {
	sc := bufio.NewScanner(bytes.NewReader(doc))
	state, start := 0, 0 // 0: before the heading, 1: before the fence, 2: inside
	var out []string
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case state == 0 && strings.TrimSpace(l) == heading:
			state = 1
		case state == 1 && strings.HasPrefix(l, "```"):
			state, start = 2, n+1
		case state == 1 && strings.HasPrefix(l, "## "):
			return nil, 0, fmt.Errorf("no code block under %q", heading)
		case state == 2 && strings.HasPrefix(l, "```"):
			return out, start, nil
		case state == 2:
			out = append(out, l)
		}
	}
	if state == 0 {
		return nil, 0, fmt.Errorf("no section %q", heading)
	}
	return nil, 0, fmt.Errorf("the code block under %q does not end", heading)
}

// matches reports whether the package p (relative to the module) is one
// of patterns (a pattern ending in /... also matches what is below it).
func matches(p string, patterns []string) bool {
	for _, pat := range patterns {
		if base, ok := strings.CutSuffix(pat, "/..."); ok {
			if p == base || strings.HasPrefix(p, base+"/") {
				return true
			}
		} else if p == pat {
			return true
		}
	}
	return false
}

// CheckMap compares the map with the module's packages: a documented
// package that does not exist, a package the map leaves out, an import
// that points up the list, a wing reaching into the other, and a package
// that reaches both wings where the map does not say they meet. It
// returns the problems, sorted.
func CheckMap(m Map, pkgs []Package) []string {
	var out []string
	rel := func(p string) (string, bool) { return strings.CutPrefix(p, Module+"/") }
	index := make(map[string]int, len(m.Packages))
	for i, p := range m.Packages {
		index[p] = i
	}
	real := map[string]bool{}
	for _, p := range pkgs {
		r, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		real[r] = true
		at, listed := index[r]
		if !listed {
			out = append(out, fmt.Sprintf("%s is a package of the module that docs/architecture.md's map does not list", r))
			continue
		}
		for _, imp := range p.Imports {
			q, ok := rel(imp)
			if j, listed := index[q]; ok && listed && j <= at {
				out = append(out, fmt.Sprintf("%s imports %s, which the map lists above it (imports point down the list)", r, q))
			}
		}
	}
	for _, p := range m.Packages {
		if !real[p] {
			out = append(out, fmt.Sprintf("docs/architecture.md's map lists %s, which is not a package of the module", p))
		}
	}
	out = append(out, checkWings(m, pkgs, real)...)
	slices.Sort(out)
	return out
}

// checkWings checks that no package of one wing depends on a package of
// another, and that every package reaching two wings is where they meet.
func checkWings(m Map, pkgs []Package, real map[string]bool) []string {
	var out []string
	names := make([]string, 0, len(m.Wings))
	for w := range m.Wings {
		names = append(names, w)
	}
	slices.Sort(names)
	for _, w := range names {
		for _, pat := range m.Wings[w] {
			if !slices.ContainsFunc(slices.Collect(maps.Keys(real)), func(p string) bool { return matches(p, []string{pat}) }) {
				out = append(out, fmt.Sprintf("the %s wing names %s, which is not a package of the module", w, pat))
			}
		}
	}
	wingOf := func(p string) string {
		for _, w := range names {
			if matches(p, m.Wings[w]) {
				return w
			}
		}
		return ""
	}
	for _, p := range pkgs {
		r, ok := strings.CutPrefix(p.ImportPath, Module+"/")
		if !ok {
			continue
		}
		own := wingOf(r)
		reached := map[string]string{} // wing → one package of it
		for _, d := range p.Deps {
			q, ok := strings.CutPrefix(d, Module+"/")
			if !ok {
				continue
			}
			if w := wingOf(q); w != "" && reached[w] == "" {
				reached[w] = q
			}
		}
		for _, w := range names {
			if q := reached[w]; q != "" && own != "" && w != own {
				out = append(out, fmt.Sprintf("%s (%s wing) depends on %s (%s wing): the wings meet only in %s", r, own, q, w, strings.Join(m.Meet, ", ")))
			}
		}
		if own == "" && len(reached) > 1 && !matches(r, m.Meet) {
			out = append(out, fmt.Sprintf("%s reaches both wings, but the map does not list it where they meet", r))
		}
	}
	return out
}
