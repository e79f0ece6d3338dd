package journal

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentlineage/lineage/triad"
)

// mirrorHeader marks a file as generated.
const mirrorHeader = "<!-- GENERATED MIRROR: Canonical record is JSON triad. Do not edit by hand. -->\n"

// md accumulates Markdown; every renderer writes through it so blank lines
// between blocks are uniform.
type md struct {
	b    strings.Builder
	used map[string]bool
}

func newMD(doc *triad.Value) *md {
	return &md{used: map[string]bool{"schemaVersion": true, "$schemaVersion": true}}
}

func (m *md) line(format string, args ...any) { fmt.Fprintf(&m.b, format+"\n", args...) }

func (m *md) heading(level int, title string) {
	m.line("\n%s %s\n", strings.Repeat("#", level), title)
}

// text renders a value inline: strings as they are, numbers and booleans by
// their text, arrays of scalars comma-joined, anything else as compact JSON.
func text(v *triad.Value) string {
	if v == nil {
		return ""
	}
	switch v.Kind {
	case triad.String, triad.Number, triad.Bool:
		return strings.TrimSpace(v.Text)
	case triad.Null:
		return ""
	case triad.Array:
		var parts []string
		for _, it := range v.Items {
			if it.Kind == triad.Object || it.Kind == triad.Array {
				return string(triad.Encode(v, triad.EncodeOptions{Compact: true}))
			}
			if s := text(it); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	}
	return string(triad.Encode(v, triad.EncodeOptions{Compact: true}))
}

// field writes "- Label: value" for a non-empty top-level field.
func (m *md) field(doc *triad.Value, key, label string) {
	m.used[key] = true
	if s := text(doc.Get(key)); s != "" {
		m.line("- %s: %s", label, s)
	}
}

// section writes a heading and a list for a top-level field when it has
// content.
func (m *md) section(doc *triad.Value, key, title string) {
	m.used[key] = true
	v := doc.Get(key)
	if isBlank(v) {
		return
	}
	m.heading(2, title)
	m.block(v)
}

func isBlank(v *triad.Value) bool {
	return v.IsEmpty() || (v.Kind == triad.Array && len(v.Items) == 0) || (v.Kind == triad.Object && len(v.Members) == 0)
}

// block renders any value as Markdown: text as a paragraph, arrays as
// bullets, objects as "key: value" bullets.
func (m *md) block(v *triad.Value) {
	switch v.Kind {
	case triad.Array:
		for _, it := range v.Items {
			nested := nestedList(it)
			if nested != nil {
				it = it.Clone()
				it.Delete(nested.key)
			}
			if s := item(it); s != "" {
				m.line("- %s", s)
			}
			if nested != nil {
				for _, sub := range nested.items {
					m.line("  - %s", sub)
				}
			}
		}
	case triad.Object:
		for _, mem := range v.Members {
			if s := text(mem.Value); s != "" {
				m.line("- %s: %s", mem.Key, s)
			}
		}
	default:
		m.line("%s", text(v))
	}
}

type nested struct {
	key   string
	items []string
}

// nestedList finds the list an element carries (items, bullets or text of
// scalars), rendered as sub-bullets under the element.
func nestedList(v *triad.Value) *nested {
	if v.Kind != triad.Object {
		return nil
	}
	for _, k := range []string{"items", "bullets", "text"} {
		arr := v.Get(k)
		if arr == nil || arr.Kind != triad.Array || len(arr.Items) == 0 {
			continue
		}
		n := &nested{key: k}
		for _, it := range arr.Items {
			if it.Kind == triad.Object || it.Kind == triad.Array {
				return nil
			}
			if s := text(it); s != "" {
				n.items = append(n.items, s)
			}
		}
		return n
	}
	return nil
}

// item renders one list element: objects by title (or name, slug, id) and
// their other scalar fields.
func item(v *triad.Value) string {
	if v.Kind != triad.Object {
		return text(v)
	}
	var head string
	for _, k := range []string{"title", "name", "label", "slug", "id", "key", "identifier"} {
		if s := text(v.Get(k)); s != "" {
			head = "**" + s + "**"
			break
		}
	}
	var rest []string
	for _, mem := range v.Members {
		if s := text(mem.Value); s != "" && "**"+s+"**" != head {
			rest = append(rest, mem.Key+": "+s)
		}
	}
	switch {
	case head == "":
		return strings.Join(rest, "; ")
	case len(rest) == 0:
		return head
	}
	return head + " — " + strings.Join(rest, "; ")
}

// rest renders the top-level fields no template section used, sorted, so
// the view never hides data.
func (m *md) rest(doc *triad.Value) {
	var keys []string
	for _, mem := range doc.Members {
		if !m.used[mem.Key] && !isBlank(mem.Value) {
			keys = append(keys, mem.Key)
		}
	}
	if len(keys) == 0 {
		return
	}
	sort.Strings(keys)
	m.heading(2, "Other fields")
	for _, k := range keys {
		m.line("- %s: %s", k, text(doc.Get(k)))
	}
}

// notes renders notes as an array of {author, date|timestamp, blocks} or a
// single such object.
func (m *md) notes(doc *triad.Value) {
	m.used["notes"] = true
	v := doc.Get("notes")
	if v != nil && v.Kind == triad.Object {
		v = triad.NewArray(v)
	}
	if isBlank(v) || v.Kind != triad.Array {
		if !isBlank(v) {
			m.heading(2, "Notes")
			m.block(v)
		}
		return
	}
	var lines []string
	for _, n := range v.Items {
		if s := noteText(n); s != "" {
			lines = append(lines, s)
		}
	}
	if len(lines) == 0 {
		return
	}
	m.heading(2, "Notes")
	for _, s := range lines {
		m.line("- %s", s)
	}
}

func noteText(n *triad.Value) string {
	if n.Kind != triad.Object {
		return text(n)
	}
	var parts []string
	if bl := n.Get("blocks"); bl != nil && bl.Kind == triad.Array {
		for _, b := range bl.Items {
			if b.Kind == triad.Object {
				parts = append(parts, text(b.Get("text")))
			} else {
				parts = append(parts, text(b))
			}
		}
	}
	body := strings.TrimSpace(strings.Join(parts, " "))
	if body == "" {
		return ""
	}
	who := text(n.Get("author"))
	when := text(n.Get("date"))
	if when == "" {
		when = text(n.Get("timestamp"))
	}
	if who != "" || when != "" {
		return strings.TrimSpace(who+" "+when) + ": " + body
	}
	return body
}

func (m *md) header(doc *triad.Value, fallback, kindTitle string) {
	m.b.WriteString(mirrorHeader)
	title := text(doc.Get("title"))
	if title == "" {
		title = fallback
	}
	m.used["title"] = true
	m.line("# %s — %s", title, kindTitle)
	for _, k := range []string{"status", "updated"} {
		m.used[k] = true
		if s := text(doc.Get(k)); s != "" {
			m.line("\n_%s: %s_", strings.ToUpper(k[:1])+k[1:], s)
		}
	}
}

func (m *md) done() []byte {
	s := strings.TrimRight(m.b.String(), "\n") + "\n"
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return []byte(s)
}

// RenderAgent is the agent template: identity, purpose, responsibilities,
// guardrails, checklists, sections, links, notes, then any other field.
func RenderAgent(doc *triad.Value, slug string) []byte {
	m := newMD(doc)
	m.header(doc, slug, "Agent Profile")
	m.heading(2, "Identity")
	m.field(doc, "slug", "Slug")
	m.field(doc, "role", "Role")
	m.field(doc, "handle", "Handle")
	m.field(doc, "owners", "Owners")
	m.field(doc, "mentors", "Mentors")
	m.field(doc, "tags", "Tags")
	if cm := doc.Get("contributionMix"); cm != nil && cm.Kind == triad.Object {
		m.used["contributionMix"] = true
		for _, part := range []string{"primary", "secondary"} {
			if arr := cm.Get(part); !isBlank(arr) && arr.Kind == triad.Array {
				m.line("- Contribution mix (%s): %s", part, mixText(arr))
			}
		}
	}
	m.section(doc, "purpose", "Purpose")
	m.section(doc, "mission", "Mission")
	m.section(doc, "responsibilities", "Responsibilities")
	m.section(doc, "guardrails", "Guardrails")
	m.section(doc, "checklists", "Checklists")
	m.section(doc, "sections", "Sections")
	m.links(doc)
	m.notes(doc)
	m.rest(doc)
	return m.done()
}

func mixText(arr *triad.Value) string {
	var parts []string
	for _, it := range arr.Items {
		if it.Kind == triad.Object {
			parts = append(parts, text(it.Get("type"))+"="+text(it.Get("weight")))
		} else {
			parts = append(parts, text(it))
		}
	}
	return strings.Join(parts, ", ")
}

func (m *md) links(doc *triad.Value) {
	m.used["links"] = true
	v := doc.Get("links")
	if isBlank(v) || v.Kind != triad.Array {
		return
	}
	m.heading(2, "Links")
	for _, l := range v.Items {
		if l.Kind != triad.Object {
			m.line("- %s", text(l))
			continue
		}
		title, url := text(l.Get("title")), text(l.Get("url"))
		switch {
		case url == "":
			m.line("- %s", title)
		case title == "":
			m.line("- <%s>", url)
		default:
			m.line("- [%s](%s)", title, url)
		}
	}
}

// RenderAgenda is the agenda template: horizons, milestones, backlog,
// notes, then any other field.
func RenderAgenda(doc *triad.Value, slug string) []byte {
	m := newMD(doc)
	m.header(doc, slug, "Agenda")
	m.section(doc, "horizons", "Horizons")
	m.section(doc, "milestones", "Milestones")
	m.section(doc, "backlog", "Backlog")
	m.section(doc, "sections", "Sections")
	m.links(doc)
	m.notes(doc)
	m.used["slug"] = true
	m.rest(doc)
	return m.done()
}

// RenderAgency is the agency template: the log newest first (entries
// without a timestamp last, in file order), notes, then any other field.
func RenderAgency(doc *triad.Value, slug string) []byte {
	m := newMD(doc)
	m.header(doc, slug, "Agency")
	m.used["entries"], m.used["slug"] = true, true
	if es := doc.Get("entries"); es != nil && es.Kind == triad.Array && len(es.Items) > 0 {
		m.heading(2, "Agency log")
		items := append([]*triad.Value{}, es.Items...)
		sort.SliceStable(items, func(i, j int) bool {
			a, b := strings.TrimSpace(items[i].Str("timestamp")), strings.TrimSpace(items[j].Str("timestamp"))
			if (a == "") != (b == "") {
				return b == ""
			}
			return a > b
		})
		for _, e := range items {
			m.entry(e)
		}
	}
	m.notes(doc)
	m.rest(doc)
	return m.done()
}

func (m *md) entry(e *triad.Value) {
	if e.Kind != triad.Object {
		m.line("\n- %s", text(e))
		return
	}
	var head []string
	for _, k := range []string{"timestamp", "kind", "title"} {
		if s := text(e.Get(k)); s != "" {
			head = append(head, s)
		}
	}
	if len(head) == 0 {
		head = []string{"(untitled)"}
	}
	m.heading(3, strings.Join(head, " — "))
	skip := map[string]bool{"timestamp": true, "kind": true, "title": true, "contributions": true, "summary": true}
	if s := text(e.Get("summary")); s != "" {
		m.line("- Summary: %s", s)
	}
	for _, mem := range e.Members {
		if skip[mem.Key] || isBlank(mem.Value) {
			continue
		}
		label := strings.ToUpper(mem.Key[:1]) + mem.Key[1:]
		if mem.Value.Kind == triad.Array && len(mem.Value.Items) > 0 && mem.Value.Items[0].Kind == triad.String && mem.Key != "tags" {
			for _, it := range mem.Value.Items {
				if s := text(it); s != "" {
					m.line("- %s", s)
				}
			}
			continue
		}
		m.line("- %s: %s", label, text(mem.Value))
	}
	if cs := e.Get("contributions"); !isBlank(cs) && cs.Kind == triad.Array {
		m.line("- Contributions:")
		for _, c := range cs.Items {
			m.line("  - %s", contributionText(c))
		}
	}
}

func contributionText(c *triad.Value) string {
	if c.Kind != triad.Object {
		return text(c)
	}
	who := text(c.Get("by"))
	for _, k := range []string{"who", "agent"} {
		if who == "" {
			who = text(c.Get(k))
		}
	}
	var parts []string
	if ts := c.Get("types"); ts != nil && ts.Kind == triad.Array {
		for _, t := range ts.Items {
			s := text(t.Get("type")) + "=" + text(t.Get("weight"))
			if ev := text(t.Get("evidence")); ev != "" {
				s += " — " + ev
			}
			parts = append(parts, s)
		}
	} else if t := text(c.Get("type")); t != "" {
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return item(c)
	}
	return strings.TrimSpace(who + ": " + strings.Join(parts, "; "))
}
