package journal

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// preCurrent are the schema versions older than 0.4.0; a migrated document
// says 0.4.0 instead. Newer versions (0.5.0) are left alone.
var preCurrent = map[string]bool{"": true, "0.1.0": true, "0.2.0": true, "0.3.0": true, "0.3.1": true,
	"clia.triad.agent.v1.json": true, "clia.triad.agenda.v1.json": true, "clia.triad.agency.v1.json": true}

// Migrate brings the documents t selects to the 0.4.0 shapes, after CLIA's
// `normalize-schema` and the agents migration runbook
// (.clia/schemas/specs/clia-agents-migration-runbook.md):
//   - "$schemaVersion" becomes "schemaVersion" in place; a pre-0.4.0 or
//     missing version becomes "0.4.0";
//   - extensions "sourcePath"/"x-source-path" move to a top-level
//     "sourcePath" (an extension value that differs from it stays);
//   - "sections" given as strings ("Title: item") become titled sections,
//     "checklists" given as strings one checklist of required items;
//   - notes {"object": {…}} is unwrapped and string note blocks become
//     paragraph blocks;
//   - agent documents: a missing role becomes the slug, string-only
//     "agentExpertise" becomes "focusDomains" {identifier, label};
//   - a legacy name <x>.<kind>.json becomes <x>.<kind>.triad.json when the
//     directory has no current-form document of that kind.
//
// Nothing else changes: unknown keys, key order, number texts and the
// layout survive, and a second run changes nothing. With Write the old bytes
// are kept in <file>.bak (for a rename, the legacy file itself becomes
// <legacy name>.bak); otherwise each change is reported as a unified diff.
func Migrate(ctx context.Context, opts Options, t Tidy) ([]TidyResult, error) {
	files, err := tidyFiles(opts, t)
	if err != nil {
		return nil, err
	}
	out := []TidyResult{}
	for _, f := range files {
		if f.link != "" {
			k, _, _ := triad.Match(filepath.Base(f.path))
			out = append(out, skippedLink(f, k))
			continue
		}
		r, err := migrateFile(ctx, f, t.Write)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func migrateFile(ctx context.Context, tf tidyFile, write bool) (TidyResult, error) {
	f := tf.path
	k, current, _ := triad.Match(filepath.Base(f))
	r := TidyResult{File: f, Kind: string(k)}
	dir := filepath.Dir(f)
	target := f
	if !current {
		if sel, err := triad.SelectDir(dir); err == nil && sel.Files[k] == filepath.Base(f) {
			target = strings.TrimSuffix(f, ".json") + ".triad.json"
			r.File, r.RenamedFrom = target, f
		}
	}
	old, err := fsx.ReadRegular(f, agents.MaxDocumentBytes)
	if err != nil {
		return r, err
	}
	doc, layout, perm, err := readAgency(f)
	if err != nil {
		return r, err
	}
	changed := migrateDoc(doc, k)
	if !changed && target == f {
		if write {
			// Remove what a killed run left, under the lock.
			_, unlock, err := lockTidy(ctx, tf)
			if err != nil {
				return r, err
			}
			unlock()
		}
		return r, nil
	}
	r.Changed = true
	data := old
	if changed {
		data = triad.Encode(doc, layout)
	}
	r.Diff = string(diff.Diff(f, old, target, data))
	if !write {
		return r, nil
	}
	d, unlock, err := lockTidy(ctx, tf)
	if err != nil {
		return r, err
	}
	defer unlock()
	name, targetName := filepath.Base(f), filepath.Base(target)
	if now, _, err := readIn(d, name, f); err != nil || string(now) != string(old) {
		return r, errConcurrent(f, err)
	}
	if target != f {
		if _, err := d.Lstat(targetName); err == nil {
			return r, errExists(target)
		}
		if err := fsx.WriteFileAtomicIn(d, targetName, data, perm); err != nil {
			return r, err
		}
		r.Written = true
		return r, d.Rename(name, name+".bak")
	}
	if err := fsx.WriteFileAtomicIn(d, name+".bak", old, perm); err != nil {
		return r, err
	}
	r.Written = true
	return r, fsx.WriteFileAtomicIn(d, name, data, perm)
}

// migrateDoc applies the 0.4.0 shape rules to doc and reports a change.
func migrateDoc(doc *triad.Value, k triad.DocKind) bool {
	changed := false
	set := func(key string, v *triad.Value) {
		doc.Set(key, v)
		changed = true
	}
	legacy := doc.Get("$schemaVersion")
	if legacy != nil {
		if doc.Get("schemaVersion") == nil {
			renameKey(doc, "$schemaVersion", "schemaVersion")
			if !preCurrent[legacy.Text] {
				doc.Set("schemaVersion", legacy)
			}
		} else {
			doc.Delete("$schemaVersion")
		}
		changed = true
	}
	if v := doc.Get("schemaVersion"); v == nil || (v.Kind == triad.String && preCurrent[v.Text]) || v.Kind == triad.Null {
		if v == nil {
			doc.Members = append([]triad.Member{{Key: "schemaVersion", Value: triad.NewString(currentSchema)}}, doc.Members...)
			changed = true
		} else if v.Text != currentSchema || v.Kind != triad.String {
			set("schemaVersion", triad.NewString(currentSchema))
		}
	}
	if ext := doc.Get("extensions"); ext != nil && ext.Kind == triad.Object {
		chosen, moved := doc.Get("sourcePath"), false
		for _, key := range []string{"sourcePath", "x-source-path"} {
			v := ext.Get(key)
			if v == nil || v.Kind != triad.String {
				continue
			}
			if chosen == nil {
				chosen = v
				set("sourcePath", v)
			}
			if triad.Equal(v, chosen) {
				ext.Delete(key)
				changed, moved = true, true
			}
		}
		if len(ext.Members) == 0 && moved {
			doc.Delete("extensions")
		}
	}
	if s := doc.Get("sections"); s != nil && s.Kind == triad.Array && len(s.Items) > 0 && allStrings(s) {
		set("sections", sectionsFromFlat(s.Items))
	}
	if c := doc.Get("checklists"); c != nil && c.Kind == triad.Array && len(c.Items) > 0 && allStrings(c) {
		items := triad.NewArray()
		for _, it := range c.Items {
			o := triad.NewObject()
			o.Set("text", it)
			o.Set("level", triad.NewString("required"))
			items.Items = append(items.Items, o)
		}
		list := triad.NewObject()
		list.Set("items", items)
		set("checklists", triad.NewArray(list))
	}
	if migrateNotes(doc) {
		changed = true
	}
	if k == triad.Agent {
		if role := doc.Get("role"); (role == nil || role.IsEmpty()) && doc.Str("slug") != "" {
			set("role", triad.NewString(doc.Str("slug")))
		}
		if exp := doc.Get("agentExpertise"); exp != nil && exp.Kind == triad.Array && allStrings(exp) && focusFrom(doc, exp) {
			doc.Delete("agentExpertise")
			changed = true
		}
	}
	return changed
}

// renameKey renames a member in place.
func renameKey(doc *triad.Value, from, to string) {
	for i := range doc.Members {
		if doc.Members[i].Key == from {
			doc.Members[i].Key = to
		}
	}
}

// sectionsFromFlat groups "Title: item" strings by title in first-seen
// order; strings without ": " form a last, untitled section.
func sectionsFromFlat(items []*triad.Value) *triad.Value {
	out := triad.NewArray()
	byTitle := map[string]*triad.Value{}
	untitled := triad.NewArray()
	for _, it := range items {
		title, item, ok := strings.Cut(it.Text, ": ")
		if !ok {
			untitled.Items = append(untitled.Items, it)
			continue
		}
		sec := byTitle[title]
		if sec == nil {
			sec = triad.NewObject()
			sec.Set("title", triad.NewString(title))
			sec.Set("items", triad.NewArray())
			byTitle[title] = sec
			out.Items = append(out.Items, sec)
		}
		list := sec.Get("items")
		list.Items = append(list.Items, triad.NewString(item))
	}
	if len(untitled.Items) > 0 {
		sec := triad.NewObject()
		sec.Set("items", untitled)
		out.Items = append(out.Items, sec)
	}
	return out
}

// migrateNotes unwraps notes {"object": {…}} (when that is its only key)
// and turns string blocks into paragraph blocks.
func migrateNotes(doc *triad.Value) bool {
	notes := doc.Get("notes")
	if notes == nil || notes.Kind != triad.Object {
		return false
	}
	changed := false
	if len(notes.Members) == 1 && notes.Members[0].Key == "object" && notes.Members[0].Value.Kind == triad.Object {
		notes = notes.Members[0].Value
		doc.Set("notes", notes)
		changed = true
	}
	if blocks := notes.Get("blocks"); blocks != nil && blocks.Kind == triad.Array {
		for i, b := range blocks.Items {
			if b.Kind == triad.String {
				p := triad.NewObject()
				p.Set("kind", triad.NewString("paragraph"))
				p.Set("text", triad.NewArray(b))
				blocks.Items[i] = p
				changed = true
			}
		}
	}
	return changed
}

// focusFrom adds each expertise label to focusDomains as {identifier,
// label} unless its identifier is there, and reports success (false when
// focusDomains exists but is not an array: then nothing moves).
func focusFrom(doc, exp *triad.Value) bool {
	fd := doc.Get("focusDomains")
	if fd == nil || fd.Kind == triad.Null {
		fd = triad.NewArray()
		doc.Set("focusDomains", fd)
	}
	if fd.Kind != triad.Array {
		return false
	}
	have := map[string]bool{}
	for _, it := range fd.Items {
		have[it.Str("identifier")] = true
	}
	for _, e := range exp.Items {
		id := slugCase(e.Text)
		if id == "" || have[id] {
			continue
		}
		have[id] = true
		o := triad.NewObject()
		o.Set("identifier", triad.NewString(id))
		o.Set("label", e)
		fd.Items = append(fd.Items, o)
	}
	return true
}

// slugCase lower-cases s and joins its letter and digit runs with '-'.
func slugCase(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

func errConcurrent(f string, err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%s changed while migrating; nothing written, run again", f)
}

func errExists(f string) error {
	return fmt.Errorf("refusing to migrate: %s already exists", f)
}
