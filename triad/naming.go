package triad

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// DocKind is one of the three documents of a triad.
type DocKind string

// The triad kinds.
const (
	Agent  DocKind = "agent"
	Agenda DocKind = "agenda"
	Agency DocKind = "agency"
)

// Kinds lists the triad kinds in their usual order.
var Kinds = []DocKind{Agent, Agenda, Agency}

// ParseKind accepts "agent", "agenda" or "agency".
func ParseKind(s string) (DocKind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown triad kind %q (want agent, agenda or agency)", s)
}

// Prefix is the file name up to its first '.':
// "root@todo3.clia.agent.triad.json" → "root@todo3".
func Prefix(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return name
}

// Match reports whether name is a triad document of some kind and whether it
// uses the current ".<kind>.triad.json" form (legacy ".<kind>.json"
// otherwise). The part before ".<kind>" must be non-empty.
func Match(name string) (kind DocKind, current, ok bool) {
	for _, k := range Kinds {
		if s := "." + string(k) + ".triad.json"; strings.HasSuffix(name, s) && len(name) > len(s) {
			return k, true, true
		}
	}
	for _, k := range Kinds {
		if s := "." + string(k) + ".json"; strings.HasSuffix(name, s) && len(name) > len(s) {
			return k, false, true
		}
	}
	return "", false, false
}

// Selection is the outcome of choosing the triad documents of one context
// directory.
type Selection struct {
	// Files maps each kind to the chosen file name (not path).
	Files map[DocKind]string
	// Ignored lists, per kind, the other candidates that lost to the chosen
	// one (several current-form files, or legacy files shadowed by a current
	// one), in byte-wise order.
	Ignored map[DocKind][]string
}

// Empty reports whether no document was found.
func (s Selection) Empty() bool { return len(s.Files) == 0 }

// SelectNames applies the naming rules to the names of regular files directly
// in a context directory: per kind the first current-form name in byte-wise
// order, else the first legacy name.
func SelectNames(names []string) Selection {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	current := map[DocKind][]string{}
	legacy := map[DocKind][]string{}
	for _, n := range sorted {
		k, cur, ok := Match(n)
		if !ok {
			continue
		}
		if cur {
			current[k] = append(current[k], n)
		} else {
			legacy[k] = append(legacy[k], n)
		}
	}
	sel := Selection{Files: map[DocKind]string{}, Ignored: map[DocKind][]string{}}
	for _, k := range Kinds {
		cands := append(current[k], legacy[k]...)
		if len(cands) == 0 {
			continue
		}
		sel.Files[k] = cands[0]
		if len(cands) > 1 {
			sel.Ignored[k] = cands[1:]
		}
	}
	return sel
}

// SelectDir reads dir (following a symlink to it) and selects its triad
// documents. Subdirectories and non-regular entries are ignored.
func SelectDir(dir string) (Selection, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return Selection{}, err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		if e.Type()&os.ModeSymlink != 0 {
			fi, err := os.Stat(dir + string(os.PathSeparator) + e.Name())
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
		} else if !e.Type().IsRegular() {
			continue
		}
		names = append(names, e.Name())
	}
	return SelectNames(names), nil
}
