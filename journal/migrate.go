package journal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
//   - agency entries' legacy contributions (a list of type names, or of
//     {agent, type} objects) take CLIA's grouped form (see
//     migrateContributions);
//   - a legacy name <x>.<kind>.json becomes <x>.<kind>.triad.json when the
//     directory has no current-form document of that kind, and every
//     reference to the old name is rewritten in the same run — inherits and
//     extensions.inherits of any triad document under the workspace root,
//     the path in a repository's AGENTS.md — so that no merged profile
//     loses a layer (see applyMigration for the order of the writes); the
//     mirror of a migrated document is rendered again when it exists.
//
// Nothing else changes: unknown keys, key order, number texts and the
// layout survive, and a second run changes nothing. With Write the old bytes
// are kept in <file>.bak (for a rename, the legacy file itself becomes
// <legacy name>.bak); otherwise each change is reported as a unified diff.
func Migrate(ctx context.Context, opts Options, t Tidy) ([]TidyResult, error) {
	if !t.Write {
		steps, skipped, err := planMigration(opts, t)
		return append(stepResults(steps), skipped...), err
	}
	home, err := migrateHome(opts, t)
	if err != nil {
		return nil, err
	}
	m, err := openMigrateSession(ctx, home)
	if err != nil {
		return nil, err
	}
	defer m.close()
	// A run killed after writing its journal is finished first, from the
	// journal: a half-renamed tree would plan differently.
	var out []TidyResult
	pending, ops, err := m.pendingAll()
	if err != nil {
		return nil, err
	}
	if ops != nil {
		if err := m.finishPending(ctx); err != nil {
			return nil, err
		}
	}
	if pending != nil {
		res, err := applyMigration(ctx, pending)
		if err != nil {
			return res, fmt.Errorf("finish the interrupted migrate recorded in %s: %w", m.path, err)
		}
		if err := m.done(); err != nil {
			return res, err
		}
		out = res
	}
	steps, skipped, err := planMigration(opts, t)
	if err != nil {
		return append(out, stepResults(steps)...), err
	}
	if err := m.record(steps); err != nil {
		return append(out, stepResults(steps)...), err
	}
	// A document with nothing to migrate is still locked once: that
	// removes the temporary files a killed run left beside it.
	for _, s := range steps {
		if !s.res.Changed {
			_, unlock, err := lockTidy(ctx, tidyFile{path: s.file, base: s.baseDir()})
			if err != nil {
				return append(out, append(stepResults(steps), skipped...)...), err
			}
			unlock()
		}
	}
	res, err := applyMigration(ctx, steps)
	if err == nil {
		err = m.done()
	}
	return append(out, append(res, skipped...)...), err
}

// planMigration plans every change of a migrate of t (see Migrate).
func planMigration(opts Options, t Tidy) ([]*migStep, []TidyResult, error) {
	files, err := tidyFiles(opts, t)
	if err != nil {
		return nil, nil, err
	}
	var steps []*migStep
	renames := map[string]string{}
	var skipped []TidyResult
	for _, tf := range files {
		if tf.link != "" {
			k, _, _ := triad.Match(filepath.Base(tf.path))
			skipped = append(skipped, skippedLink(tf, k))
			continue
		}
		s, err := planMigrate(tf.path)
		if err != nil {
			return steps, skipped, err
		}
		s.base = tf.base
		steps = append(steps, s)
		if s.target != s.file {
			renames[s.file] = s.target
		}
	}
	if len(renames) > 0 {
		if steps, err = planReferences(renames, steps, opts.Agents.AllowOutsideInherits); err != nil {
			return steps, skipped, err
		}
	}
	steps = append(steps, mirrorSteps(steps)...)
	for _, s := range steps {
		s.finish()
	}
	return steps, skipped, nil
}

// migStep is one file a migration changes: a triad document migrated (and
// perhaps renamed), or a document, roster or mirror whose references to a
// renamed document are rewritten.
type migStep struct {
	file, target string
	// base is the directory the step's writes stay inside (see openDir);
	// "" means the file's own directory.
	base       string
	kind       triad.DocKind
	old        []byte
	perm       os.FileMode
	doc        *triad.Value // nil for a text file (roster, mirror)
	layout     triad.EncodeOptions
	docChanged bool
	data       []byte // the new bytes (set by finish)
	// first is, for a renamed document whose references are rewritten,
	// its bytes before that rewrite (written first; see applyMigration).
	first []byte
	refs  []string
	// text is the new content of a text file (doc is nil); mirror marks a
	// generated mirror, which gets no .bak.
	text   []byte
	mirror bool
	// literal: text is the document with only its rewritten references'
	// string literals replaced (doc is what it says, for reading).
	literal bool
	res     TidyResult
}

// planMigrate reads f and applies the 0.4.0 rules in memory.
func planMigrate(f string) (*migStep, error) {
	k, current, _ := triad.Match(filepath.Base(f))
	s := &migStep{file: f, target: f, kind: k}
	if !current {
		if sel, err := triad.SelectDir(filepath.Dir(f)); err == nil && sel.Files[k] == filepath.Base(f) {
			s.target = strings.TrimSuffix(f, ".json") + ".triad.json"
		}
	}
	old, err := fsx.ReadRegular(f, agents.MaxDocumentBytes)
	if err != nil {
		return s, err
	}
	doc, layout, perm, err := readAgency(f)
	if err != nil {
		return s, err
	}
	s.old, s.doc, s.layout, s.perm = old, doc, layout, perm
	s.docChanged = migrateDoc(doc, k)
	if k == triad.Agency && migrateContributions(doc, filepath.Base(filepath.Dir(f))) {
		s.docChanged = true
	}
	return s, nil
}

// finish computes the new bytes and the result.
func (s *migStep) finish() {
	s.res = TidyResult{File: s.target, Kind: string(s.kind), References: s.refs}
	if s.target != s.file {
		s.res.RenamedFrom = s.file
	}
	s.data = s.old
	switch {
	case s.doc == nil || s.literal:
		s.data = s.text
	case s.docChanged:
		s.data = triad.Encode(s.doc, s.layout)
	}
	if s.target == s.file && string(s.data) == string(s.old) {
		return
	}
	s.res.Changed = true
	s.res.Diff = string(diff.Diff(s.file, s.old, s.target, s.data))
}

func stepResults(steps []*migStep) []TidyResult {
	out := []TidyResult{}
	for _, s := range steps {
		out = append(out, s.res)
	}
	return out
}

// applyMigration writes the planned steps so that no profile is weaker at
// any moment: first every new current-form document is created beside its
// legacy original (still naming the old names it refers to, which all
// exist) and every document without rewritten references is migrated in
// place; then every reference to a renamed document is rewritten to its new
// name, which now exists; only then do the legacy originals become
// <name>.bak. A reader in between finds each inherited document under its
// old or its new name, with the same content. Every file is replaced
// atomically under its directory's lock, after checking that it holds
// either the bytes of the plan (nobody changed it since) or the bytes the
// step writes (a killed run wrote them): so applying the same steps again,
// from the journal, finishes what a killed run started and changes nothing
// it finished.
func applyMigration(ctx context.Context, steps []*migStep) ([]TidyResult, error) {
	for phase := 0; phase < 2; phase++ {
		for _, s := range steps {
			if !s.res.Changed {
				continue
			}
			if err := s.write(ctx, phase); err != nil {
				return stepResults(steps), err
			}
		}
	}
	for _, s := range steps {
		if s.res.Changed && s.target != s.file {
			if err := s.renameToBak(); err != nil {
				return stepResults(steps), err
			}
		}
	}
	return stepResults(steps), nil
}

// write does a step's part of one phase (see applyMigration).
func (s *migStep) write(ctx context.Context, phase int) error {
	renamed := s.target != s.file
	switch {
	case renamed && phase == 1 && s.first == nil:
		return nil
	case !renamed && phase == 0 && s.refs != nil:
		return nil
	case !renamed && phase == 1 && s.refs == nil:
		return nil
	}
	d, unlock, err := lockTidy(ctx, tidyFile{path: s.file, base: s.baseDir()})
	if err != nil {
		return err
	}
	defer unlock()
	if !renamed {
		return s.writeInPlace(d)
	}
	name := filepath.Base(s.file)
	now, _, err := readIn(d, name, s.file)
	if errors.Is(err, fs.ErrNotExist) {
		// Renamed to .bak by a killed run: only once everything else
		// was written.
		if bak, _, berr := readIn(d, name+".bak", s.file+".bak"); berr == nil && string(bak) == string(s.old) {
			s.res.Written = true
			return nil
		}
	}
	if err != nil || string(now) != string(s.old) {
		return errConcurrent(s.file, err)
	}
	if err := checkFile(filepath.Dir(s.file), s.target); err != nil {
		return err
	}
	return s.writeTarget(d, phase)
}

// writeInPlace replaces a file that keeps its name, keeping its old bytes
// in <name>.bak (a mirror, which is generated, gets none).
func (s *migStep) writeInPlace(d *os.Root) error {
	name := filepath.Base(s.file)
	now, _, err := readIn(d, name, s.file)
	switch {
	case err == nil && string(now) == string(s.data):
		s.res.Written = true
		return nil
	case err != nil || string(now) != string(s.old):
		return errConcurrent(s.file, err)
	}
	if !s.mirror {
		hook("bak " + s.file)
		if err := fsx.WriteFileAtomicIn(d, name+".bak", s.old, s.perm); err != nil {
			return err
		}
	}
	hook("write " + s.file)
	s.res.Written = true
	return fsx.WriteFileAtomicIn(d, name, s.data, s.perm)
}

// writeTarget writes a renamed document's new name: in phase 0 its bytes
// before its references are rewritten (first, when any are), in phase 1
// its final bytes.
func (s *migStep) writeTarget(d *os.Root, phase int) error {
	target := filepath.Base(s.target)
	data := s.data
	now, _, err := readIn(d, target, s.target)
	switch {
	case err == nil && string(now) == string(s.data):
		s.res.Written = true
		return nil
	case phase == 0 && errors.Is(err, fs.ErrNotExist):
		if s.first != nil {
			data = s.first
		}
	case phase == 0 && err == nil && s.first != nil && string(now) == string(s.first):
		s.res.Written = true
		return nil
	case phase == 0 && err == nil:
		return errExists(s.target)
	case err != nil || string(now) != string(s.first):
		return errConcurrent(s.target, err)
	}
	hook("write " + s.target)
	if err := fsx.WriteFileAtomicIn(d, target, data, s.perm); err != nil {
		return err
	}
	s.res.Written = true
	return nil
}

// baseDir is the directory the step's writes stay inside.
func (s *migStep) baseDir() string {
	if s.base != "" {
		return s.base
	}
	return filepath.Dir(s.file)
}

// renameToBak renames a migrated legacy document to <name>.bak through
// the root of its directory (see openDir).
func (s *migStep) renameToBak() error {
	d, err := openDir(s.baseDir(), filepath.Dir(s.file))
	if err != nil {
		return err
	}
	defer d.Close()
	name := filepath.Base(s.file)
	if _, err := d.Lstat(name); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	hook("rename " + s.file)
	return d.Rename(name, name+".bak")
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
