package agents

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentlineage/lineage/triad"
)

// The calendar windows of an agenda view.
const (
	CalendarDay   = "day"
	CalendarWeek  = "week"
	CalendarMonth = "month"
	CalendarAll   = "all"
)

// Calendars lists the accepted calendar values.
var Calendars = []string{CalendarDay, CalendarWeek, CalendarMonth, CalendarAll}

// windowDays is how many days ahead of today each window reaches; overdue
// open milestones are in every window.
var windowDays = map[string]int{CalendarDay: 0, CalendarWeek: 7, CalendarMonth: 30}

// ParseCalendar accepts day, week, month or all in any case, as CLIA does.
func ParseCalendar(s string) (string, error) {
	l := strings.ToLower(s)
	for _, c := range Calendars {
		if l == c {
			return c, nil
		}
	}
	return "", fmt.Errorf("want day, week, month or all, got %q", s)
}

// AgendaOptions select what an agenda view lists.
type AgendaOptions struct {
	// Calendar is "" (every current item, milestone and backlog item) or
	// a window: day, week, month or all.
	Calendar string
	// ActiveOnly keeps agents whose merged status is "active" (any case).
	ActiveOnly bool
	// BacklogOnly and CurrentOnly keep one part of the plain view.
	BacklogOnly, CurrentOnly bool
	// Now is the clock for "today"; only calendar views read it.
	Now time.Time
}

// Milestone is one milestone of a merged agenda.
type Milestone struct {
	Title string
	// Due is the milestone's due text; Day its UTC date, zero when Due is
	// missing or not a date.
	Due string
	Day time.Time
	// Open is false for the statuses done, completed and dropped.
	Open bool
	// Value is the whole milestone object, as merged.
	Value *triad.Value
}

// AgentAgenda is the merged agenda of one agent home, split into the parts
// the views list.
type AgentAgenda struct {
	Slug, Title, Status string
	// Path is the home's own agenda document.
	Path string
	// Current holds the items of the sections with slug "next".
	Current []string
	// Daily, Weekly and Monthly hold the items of the matching horizons.
	Daily, Weekly, Monthly []string
	// Milestones are sorted by due date (undated last), then document order.
	Milestones []Milestone
	// Backlog holds the backlog elements; a plain string becomes {"title"}.
	Backlog []*triad.Value
}

// AgendaView is the agenda of every agent home under the workspace.
type AgendaView struct {
	Options AgendaOptions
	// Agents are sorted by slug, then path.
	Agents []AgentAgenda
	Report Report
}

// CollectAgenda reads the merged agenda of every agent home under the
// workspace root of opts.Path whose own context directory holds an agenda
// document: one entry per such document, as CLIA's aggregate has one per
// file, but merged along the home's chain.
func CollectAgenda(opts Options, ao AgendaOptions) (*AgendaView, error) {
	if ao.Calendar != "" {
		c, err := ParseCalendar(ao.Calendar)
		if err != nil {
			return nil, fmt.Errorf("calendar: %w", err)
		}
		ao.Calendar = c
	}
	homes, err := FindAll(opts)
	if err != nil {
		return nil, err
	}
	v := &AgendaView{Options: ao, Agents: []AgentAgenda{}}
	for _, h := range homes {
		o := opts
		o.Path = h.Domain
		ch, err := Resolve(o, h.Slug)
		if err != nil {
			return nil, fmt.Errorf("%s at %s: %w", h.Slug, h.Domain, err)
		}
		path := ""
		for _, c := range ch.Contexts {
			if c.Domain == h.Domain && c.Files.Agenda != "" {
				path = c.Files.Agenda
			}
		}
		if path == "" {
			continue
		}
		p := ch.Profile(triad.Agenda)
		rep := ch.Report()
		v.Report.Errors = append(v.Report.Errors, rep.Errors...)
		v.Report.Warnings = append(v.Report.Warnings, rep.Warnings...)
		// A document that does not decode is skipped with its finding, as
		// CLIA skips it; its ancestors alone are not this home's agenda.
		if !slices.ContainsFunc(p.Layers, func(l triad.Layer) bool { return l.File == path }) {
			continue
		}
		a := splitAgenda(h.Slug, path, p.Merged)
		if ao.ActiveOnly && !strings.EqualFold(a.Status, "active") {
			continue
		}
		v.Agents = append(v.Agents, a)
	}
	sort.SliceStable(v.Agents, func(i, j int) bool {
		if v.Agents[i].Slug != v.Agents[j].Slug {
			return v.Agents[i].Slug < v.Agents[j].Slug
		}
		return v.Agents[i].Path < v.Agents[j].Path
	})
	v.Report = v.Report.Sorted()
	// Homes nested in one another share ancestors: report each finding once.
	v.Report.Errors, v.Report.Warnings = slices.Compact(v.Report.Errors), slices.Compact(v.Report.Warnings)
	return v, nil
}

// splitAgenda reads the parts of a merged agenda the views list, with
// CLIA's aggregate rules (TriadsCommandGroup.swift): current = the "next"
// section, horizons matched by slug or title, backlog strings or objects.
func splitAgenda(slug, path string, doc *triad.Value) AgentAgenda {
	a := AgentAgenda{Slug: slug, Path: filepath.Clean(path), Title: doc.Str("title"), Status: doc.Str("status")}
	if a.Title == "" {
		a.Title = slug
	}
	for _, s := range elements(doc.Get("sections")) {
		if s.Str("slug") == "next" {
			a.Current = append(a.Current, itemTexts(s.Get("items"))...)
		}
	}
	for _, h := range elements(doc.Get("horizons")) {
		items := itemTexts(h.Get("items"))
		switch {
		case horizonIs(h, []string{"h0-daily"}, "daily"):
			a.Daily = append(a.Daily, items...)
		case horizonIs(h, []string{"h1-weekly"}, "weekly"):
			a.Weekly = append(a.Weekly, items...)
		case horizonIs(h, []string{"h2-monthly", "h2-quarter"}, "monthly", "quarter"):
			a.Monthly = append(a.Monthly, items...)
		}
	}
	for _, m := range elements(doc.Get("milestones")) {
		a.Milestones = append(a.Milestones, readMilestone(m))
	}
	sort.SliceStable(a.Milestones, func(i, j int) bool {
		di, dj := a.Milestones[i].Day, a.Milestones[j].Day
		if di.IsZero() || dj.IsZero() {
			return !di.IsZero() && dj.IsZero()
		}
		return di.Before(dj)
	})
	for _, b := range elements(doc.Get("backlog")) {
		switch b.Kind {
		case triad.String:
			o := triad.NewObject()
			o.Set("title", b)
			a.Backlog = append(a.Backlog, o)
		case triad.Object:
			a.Backlog = append(a.Backlog, b)
		}
	}
	return a
}

func elements(v *triad.Value) []*triad.Value {
	if v == nil || v.Kind != triad.Array {
		return nil
	}
	return v.Items
}

// itemTexts returns the text of each item: a string, or an object's title
// (tau's horizons hold {"title","notes"} objects, which CLIA drops).
func itemTexts(v *triad.Value) []string {
	var out []string
	for _, it := range elements(v) {
		switch {
		case it.Kind == triad.String:
			out = append(out, it.Text)
		case it.Str("title") != "":
			out = append(out, it.Str("title"))
		}
	}
	return out
}

// horizonIs matches a horizon by slug (or the schema's key) or by a word
// in its title (or label), case-insensitively.
func horizonIs(h *triad.Value, slugs []string, words ...string) bool {
	for _, k := range []string{"slug", "key"} {
		for _, s := range slugs {
			if strings.EqualFold(h.Str(k), s) {
				return true
			}
		}
	}
	for _, k := range []string{"title", "label"} {
		t := strings.ToLower(h.Str(k))
		for _, w := range words {
			if t != "" && strings.Contains(t, w) {
				return true
			}
		}
	}
	return false
}

func readMilestone(m *triad.Value) Milestone {
	out := Milestone{Title: m.Str("title"), Due: m.Str("due"), Value: m, Open: true}
	switch strings.ToLower(m.Str("status")) {
	case "done", "completed", "dropped":
		out.Open = false
	}
	out.Day = dueDay(out.Due)
	return out
}

// dueDay parses an RFC 3339 time or a plain date into its UTC date.
func dueDay(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		if t, err = time.Parse(time.DateOnly, s); err != nil {
			return time.Time{}
		}
	}
	return startOfDay(t)
}

func startOfDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Windows lists the windows a calendar value covers, in day, week, month
// order.
func Windows(calendar string) []string {
	if calendar == CalendarAll {
		return []string{CalendarDay, CalendarWeek, CalendarMonth}
	}
	return []string{calendar}
}

// WindowMilestone is a milestone in a calendar window.
type WindowMilestone struct {
	Milestone
	Overdue bool
}

// Window returns the horizon items and the open, dated milestones of a
// calendar window: due today or overdue for day, within 7 days for week,
// within 30 days for month, counted in whole UTC days from today.
func (a *AgentAgenda) Window(w string, now time.Time) ([]string, []WindowMilestone) {
	var items []string
	switch w {
	case CalendarDay:
		items = append(append(items, a.Current...), a.Daily...)
	case CalendarWeek:
		items = a.Weekly
	case CalendarMonth:
		items = a.Monthly
	}
	today := startOfDay(now)
	var ms []WindowMilestone
	for _, m := range a.Milestones {
		if !m.Open || m.Day.IsZero() {
			continue
		}
		days := int(m.Day.Sub(today).Hours() / 24)
		if days <= windowDays[w] {
			ms = append(ms, WindowMilestone{Milestone: m, Overdue: days < 0})
		}
	}
	return items, ms
}

// Value returns the view as JSON, in CLIA's aggregate shapes: the plain
// view {"agents":[{agent,title,status,path,current,milestones,backlog}]},
// a calendar view {"day"|"week"|"month":[{agent,title,status,path,items?,
// milestones?}]} with agents that have nothing in a window left out.
func (v *AgendaView) Value() *triad.Value {
	out := triad.NewObject()
	if v.Options.Calendar == "" {
		arr := triad.NewArray()
		for i := range v.Agents {
			arr.Items = append(arr.Items, v.plainBlock(&v.Agents[i]))
		}
		out.Set("agents", arr)
		return out
	}
	for _, w := range Windows(v.Options.Calendar) {
		arr := triad.NewArray()
		for i := range v.Agents {
			a := &v.Agents[i]
			items, ms := a.Window(w, v.Options.Now)
			if len(items) == 0 && len(ms) == 0 {
				continue
			}
			o := agentHeader(a)
			if len(items) > 0 {
				o.Set("items", stringArray(items))
			}
			if len(ms) > 0 {
				marr := triad.NewArray()
				for _, m := range ms {
					mv := m.Value.Clone()
					if m.Overdue {
						mv.Set("overdue", &triad.Value{Kind: triad.Bool, Text: "true"})
					}
					marr.Items = append(marr.Items, mv)
				}
				o.Set("milestones", marr)
			}
			arr.Items = append(arr.Items, o)
		}
		out.Set(w, arr)
	}
	return out
}

func (v *AgendaView) plainBlock(a *AgentAgenda) *triad.Value {
	o := agentHeader(a)
	if !v.Options.BacklogOnly {
		o.Set("current", stringArray(a.Current))
	}
	if !v.Options.BacklogOnly && !v.Options.CurrentOnly {
		marr := triad.NewArray()
		for _, m := range a.Milestones {
			marr.Items = append(marr.Items, m.Value)
		}
		o.Set("milestones", marr)
	}
	if !v.Options.CurrentOnly {
		o.Set("backlog", triad.NewArray(a.Backlog...))
	}
	return o
}

func agentHeader(a *AgentAgenda) *triad.Value {
	o := triad.NewObject()
	o.Set("agent", triad.NewString(a.Slug))
	o.Set("title", triad.NewString(a.Title))
	o.Set("status", triad.NewString(a.Status))
	o.Set("path", triad.NewString(a.Path))
	return o
}

func stringArray(ss []string) *triad.Value {
	arr := triad.NewArray()
	for _, s := range ss {
		arr.Items = append(arr.Items, triad.NewString(s))
	}
	return arr
}
