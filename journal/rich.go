package journal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentlineage/lineage/triad"
)

// Link is a reference an entry carries: CLIA's --link 'href|kind|title'.
type Link struct {
	Href, Kind, Title string
}

// Contribution is one evidenced contribution: CLIA's --contrib
// 'by=<slug>,type=<type>,evidence=<text>[,weight=<n>]'.
type Contribution struct {
	By, Type, Evidence string
	// Weight is the number's text; empty means 1.
	Weight string
}

// LogEntry is what CLIA's `triads agency log` writes: an [Entry] plus
// details, participants, links and explicit contributions, written into the
// agency document of every slug in Slugs.
type LogEntry struct {
	Entry
	// Slugs are the agents whose logs get the entry (Entry.Slug is used
	// when Slugs is empty).
	Slugs []string
	// Details are the detail lines (--detail), then the details text
	// (--details).
	Details []string
	// Participants join the tags and, without Contributions, each get a
	// contribution of the entry's kind.
	Participants  []string
	Links         []Link
	Contributions []Contribution
	// Upsert replaces an existing entry instead of skipping it: the entry
	// with the same id, or, without an explicit id, CLIA's match — an entry
	// of the same UTC day with the same title (without an explicit Title:
	// the same kind), whose id is then kept. The replacement goes where a
	// new entry would, so a newest-first log stays newest-first.
	Upsert bool
	// NoCreate skips an agent that has no agency document yet (CLIA's
	// behaviour without --create-if-missing).
	NoCreate bool
}

// LogResult reports the write into one agent's log.
type LogResult struct {
	Slug    string `json:"slug"`
	File    string `json:"file"`
	Written bool   `json:"written"`
	// Replaced: an upsert replaced an existing entry in place.
	Replaced bool `json:"replaced,omitempty"`
	// Missing: NoCreate and the agent has no agency document.
	Missing bool         `json:"missing,omitempty"`
	Entry   *triad.Value `json:"-"`
}

// Log writes e into the agency document of each of its slugs, in order. A
// failure stops at that slug; the logs written before it stay written.
func Log(ctx context.Context, opts Options, e LogEntry) ([]LogResult, error) {
	slugs := cleanList(e.Slugs)
	if len(slugs) == 0 && e.Slug != "" {
		slugs = []string{e.Slug}
	}
	if len(slugs) == 0 {
		return nil, errors.New("no agent slug")
	}
	if strings.TrimSpace(e.Note) == "" {
		return nil, errors.New("summary is empty")
	}
	for _, c := range e.Contributions {
		if err := c.validate(); err != nil {
			return nil, err
		}
	}
	var out []LogResult
	for _, slug := range slugs {
		one := e
		one.Slug = slug
		res, err := logOne(ctx, opts, one)
		if err != nil {
			return out, fmt.Errorf("%s: %w", slug, err)
		}
		out = append(out, res)
	}
	return out, nil
}

func logOne(ctx context.Context, opts Options, e LogEntry) (LogResult, error) {
	res := LogResult{Slug: e.Slug}
	t, err := ResolveTarget(opts.Agents, e.Slug, opts.Scope, opts.AgentsDir)
	if err != nil {
		return res, err
	}
	if e.NoCreate {
		sel, err := triad.SelectDir(t.Dir)
		if _, ok := sel.Files[triad.Agency]; err != nil || !ok {
			res.Missing, res.File = true, t.Dir
			return res, nil
		}
	}
	sig, err := signature(opts, e.Entry)
	if err != nil {
		return res, err
	}
	err = updateAgency(ctx, t, e.Slug, opts.now, func(now time.Time, doc, entries *triad.Value) (bool, error) {
		entry, err := buildLogEntry(e, sig, t.Source, now)
		if err != nil {
			return false, err
		}
		res.Entry = entry
		i := findEntry(entries, entry, e.ID != "", e.Upsert, e.Title != "")
		switch {
		case i < 0:
			insert(entries, []*triad.Value{entry})
		case !e.Upsert:
			return false, nil
		default:
			if id := entries.Items[i].Str("id"); id != "" {
				entry.Set("id", triad.NewString(id))
			}
			if triad.Equal(entries.Items[i], entry) {
				return false, nil
			}
			// The replacement is newer than the entry it replaces: it
			// goes where a new entry would (first in a newest-first
			// log), so the log keeps its order.
			newest := newestFirst(entries)
			entries.Items = append(entries.Items[:i:i], entries.Items[i+1:]...)
			insertAs(entries, []*triad.Value{entry}, newest)
			res.Replaced = true
		}
		doc.Set("updated", triad.NewString(entry.Str("timestamp")))
		if len(e.DirsTouched) > 0 {
			if err := unionDirs(doc, e.DirsTouched); err != nil {
				return false, err
			}
		}
		res.Written = true
		return true, nil
	}, &res.File)
	return res, err
}

// findEntry is the index of the entry the new one collides with, or -1:
// the same id; for an upsert without an explicit id also CLIA's match (same
// UTC day, and the same title when both have one — the new entry's only
// when given with --title, not the one derived from the summary — else the
// same kind).
func findEntry(entries, entry *triad.Value, explicitID, upsert, explicitTitle bool) int {
	id := entry.Str("id")
	for i, it := range entries.Items {
		if it.Str("id") == id {
			return i
		}
	}
	if !upsert || explicitID {
		return -1
	}
	day, _, _ := strings.Cut(entry.Str("timestamp"), "T")
	title, kind := entry.Str("title"), entry.Str("kind")
	if !explicitTitle {
		title = ""
	}
	for i, it := range entries.Items {
		if !strings.HasPrefix(it.Str("timestamp"), day) {
			continue
		}
		if t := it.Get("title"); t != nil && t.Kind == triad.String && title != "" {
			if t.Text == title {
				return i
			}
			continue
		}
		if k := it.Str("kind"); k != "" && k == kind {
			return i
		}
	}
	return -1
}

// buildLogEntry assembles the entry: lineage's shape (id, signature,
// source) with CLIA's rich fields in CLIA's key order; its id is the SHA-256
// of its canonical JSON without id unless e.ID is set.
func buildLogEntry(e LogEntry, sig, source string, now time.Time) (*triad.Value, error) {
	kind := e.Kind
	if kind == "" {
		kind = "journal"
	}
	title := e.Title
	if title == "" {
		title = defaultTitle(e.Note)
	}
	body := triad.NewObject()
	body.Set("timestamp", triad.NewString(now.Format(time.RFC3339)))
	body.Set("kind", triad.NewString(kind))
	body.Set("title", triad.NewString(title))
	body.Set("summary", triad.NewString(e.Note))
	if details := nonBlank(e.Details); len(details) > 0 {
		body.Set("details", stringArray(details))
	}
	body.Set("tags", stringArray(cleanList(append(append([]string{}, e.Tags...), e.Participants...))))
	if len(e.Links) > 0 {
		links := triad.NewArray()
		for _, l := range e.Links {
			links.Items = append(links.Items, l.value())
		}
		body.Set("links", links)
	}
	body.Set("signature", triad.NewString(sig))
	body.Set("source", triad.NewString(source))
	body.Set("contributions", contributionGroups(e, kind))
	if dirs := cleanList(e.DirsTouched); len(dirs) > 0 {
		ext := triad.NewObject()
		ext.Set("x-dirsTouched", stringArray(dirs))
		body.Set("extensions", ext)
	}
	id := e.ID
	if id == "" {
		sum, err := contentID(body)
		if err != nil {
			return nil, err
		}
		id = sum
	}
	entry := triad.NewObject()
	entry.Members = append([]triad.Member{{Key: "id", Value: triad.NewString(id)}}, body.Members...)
	return entry, nil
}

// contributionGroups groups explicit contributions by actor in first-seen
// order; without any, each participant (else the slug) contributes one
// item of the entry's kind with the summary as evidence.
func contributionGroups(e LogEntry, kind string) *triad.Value {
	cs := e.Contributions
	if len(cs) == 0 {
		actors := cleanList(e.Participants)
		if len(actors) == 0 {
			actors = []string{e.Slug}
		}
		for _, a := range actors {
			cs = append(cs, Contribution{By: a, Type: kind, Evidence: e.Note})
		}
	}
	groups := triad.NewArray()
	byActor := map[string]*triad.Value{}
	for _, c := range cs {
		g := byActor[c.By]
		if g == nil {
			g = triad.NewObject()
			g.Set("by", triad.NewString(c.By))
			g.Set("types", triad.NewArray())
			byActor[c.By] = g
			groups.Items = append(groups.Items, g)
		}
		w := c.Weight
		if w == "" {
			w = "1"
		}
		it := triad.NewObject()
		it.Set("type", triad.NewString(c.Type))
		it.Set("weight", triad.NewNumber(w))
		it.Set("evidence", triad.NewString(c.Evidence))
		types := g.Get("types")
		types.Items = append(types.Items, it)
	}
	return groups
}

func (l Link) value() *triad.Value {
	v := triad.NewObject()
	if l.Title != "" {
		v.Set("title", triad.NewString(l.Title))
	}
	v.Set("url", triad.NewString(l.Href))
	if l.Kind != "" {
		v.Set("kind", triad.NewString(l.Kind))
	}
	return v
}

func nonBlank(in []string) []string {
	var out []string
	for _, s := range in {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
