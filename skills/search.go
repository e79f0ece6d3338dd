package skills

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
)

// Match is one skill a search found, with why.
type Match struct {
	Skill  Skill  `json:"skill"`
	Score  int    `json:"score"`
	Reason string `json:"reason"` // "exact name", "name prefix", "name contains", "words"
}

// Search ranks the catalog's skills against query, best first: the exact
// name, then names starting with it, then names containing it, then by the
// query's words found in the name (each worth two) and the description
// (each worth one). Ties go to the nearer skill, then the name. limit <= 0
// means no limit.
func (c *Catalog) Search(query string, limit int) []Match {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" {
		return nil
	}
	qw := words(q)
	var out []Match
	for _, s := range c.Skills {
		name := strings.ToLower(s.Name)
		nameWords, descWords := words(name), words(strings.ToLower(s.Description))
		overlap := 0
		for _, w := range qw {
			switch {
			case slices.Contains(nameWords, w):
				overlap += 2
			case slices.Contains(descWords, w) || prefixOfAny(w, descWords):
				overlap++
			}
		}
		m := Match{Skill: s}
		switch {
		case name == q:
			m.Score, m.Reason = 1000, "exact name"
		case strings.HasPrefix(name, q):
			m.Score, m.Reason = 800, "name prefix"
		case strings.Contains(name, q):
			m.Score, m.Reason = 600, "name contains"
		case overlap > 0:
			m.Score, m.Reason = 0, "words"
		default:
			continue
		}
		m.Score += overlap
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Match) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Skill.rank, b.Skill.rank), strings.Compare(a.Skill.Name, b.Skill.Name))
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// words splits lowercase text into words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// prefixOfAny: a query word of four letters or more also matches the words
// it begins ("extract" finds "extracting").
func prefixOfAny(w string, ws []string) bool {
	if len(w) < 4 {
		return false
	}
	return slices.ContainsFunc(ws, func(x string) bool { return strings.HasPrefix(x, w) })
}
