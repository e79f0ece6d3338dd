package journal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/canon"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Options says where a write goes and what time it is.
type Options struct {
	Agents agents.Options
	// Scope is submodule (default), workspace or local.
	Scope string
	// AgentsDir is the fallback outside any repository.
	AgentsDir string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Validate checks the scope: "" (submodule), submodule, workspace or
// local.
func (o Options) Validate() error {
	switch o.Scope {
	case "", ScopeSubmodule, ScopeWorkspace, ScopeLocal:
		return nil
	}
	return fmt.Errorf("unknown scope %q (want submodule, workspace or local)", o.Scope)
}

// Document is the result as `lineage agents journal --json` prints it and
// the MCP agents_journal tool returns it: {"file", "written", "entry"}.
func (r Result) Document() *triad.Value {
	out := triad.NewObject()
	out.Set("file", triad.NewString(r.File))
	out.Set("written", &triad.Value{Kind: triad.Bool, Text: fmt.Sprint(r.Written)})
	out.Set("entry", r.Entry)
	return out
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now().UTC()
	}
	return o.Now().UTC()
}

// Entry is what a journal write records.
type Entry struct {
	Slug  string
	Note  string
	Title string
	// Kind defaults to "journal".
	Kind string
	Tags []string
	// Signature is "auto" (or empty): the merged agent profile's
	// extensions.journalSignature, else "-<slug>".
	Signature   string
	DirsTouched []string
	// ID overrides the content hash.
	ID string
}

// Result reports one journal write.
type Result struct {
	File    string
	Written bool
	Entry   *triad.Value
}

// lockName is the sibling lock file that serializes writers of a context
// directory's agency document.
const lockName = agents.AgencyLockName

// Append writes one entry into the agency document of e.Slug at the write
// target of opts, creating directory and document on first use. An entry
// whose id is already present is not written again. Writers are serialized
// by a lock; the document is replaced atomically, so readers and crashes see
// the old or the new file, never a torn one.
func Append(ctx context.Context, opts Options, e Entry) (*Result, error) {
	if strings.TrimSpace(e.Note) == "" {
		return nil, errors.New("note is empty")
	}
	t, err := ResolveTarget(opts.Agents, e.Slug, opts.Scope, opts.AgentsDir)
	if err != nil {
		return nil, err
	}
	sig, err := signature(opts, e)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	err = updateAgency(ctx, t, e.Slug, opts.now, func(now time.Time, doc, entries *triad.Value) (bool, error) {
		entry, err := buildEntry(e, sig, t.Source, now)
		if err != nil {
			return false, err
		}
		res.Entry = entry
		id := entry.Str("id")
		if entryIndex(entries)[id] {
			return false, nil
		}
		insert(entries, []*triad.Value{entry})
		doc.Set("updated", triad.NewString(entry.Str("timestamp")))
		if len(e.DirsTouched) > 0 {
			if err := unionDirs(doc, e.DirsTouched); err != nil {
				return false, err
			}
		}
		res.Written = true
		return true, nil
	}, &res.File)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// signature resolves "auto" through the merged agent profile.
func signature(opts Options, e Entry) (string, error) {
	if e.Signature != "" && e.Signature != "auto" {
		return e.Signature, nil
	}
	p, err := agents.BuildProfile(opts.Agents, e.Slug, triad.Agent)
	if err != nil {
		return "", err
	}
	if s := p.Merged.Get("extensions").Str("journalSignature"); strings.TrimSpace(s) != "" {
		return s, nil
	}
	return "-" + e.Slug, nil
}

// buildEntry assembles the CLIA-compatible entry of a plain journal write.
func buildEntry(e Entry, sig, source string, now time.Time) (*triad.Value, error) {
	return buildLogEntry(LogEntry{Entry: e}, sig, source, now)
}

// contentID is the hex SHA-256 of v's canonical JSON.
func contentID(v *triad.Value) (string, error) {
	c, err := canon.Canonicalize(triad.Encode(v, triad.EncodeOptions{Compact: true}))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}

func defaultTitle(note string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(note), "\n")
	if utf8.RuneCountInString(line) > 72 {
		line = string([]rune(line)[:71]) + "…"
	}
	return line
}

func cleanList(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func stringArray(ss []string) *triad.Value {
	a := triad.NewArray()
	a.Items = []*triad.Value{}
	for _, s := range ss {
		a.Items = append(a.Items, triad.NewString(s))
	}
	return a
}

// entryIndex is the set of ids in an entries array.
func entryIndex(entries *triad.Value) map[string]bool {
	ids := map[string]bool{}
	for _, it := range entries.Items {
		if id := it.Str("id"); id != "" {
			ids[id] = true
		}
	}
	return ids
}

// newestFirst reports whether the log reads newest-first: more of its
// neighbouring dated entries descend than ascend, and on a tie its first
// timestamp is at least its last. The vote keeps a loosely sorted log (a
// hand-moved entry, an old entry appended at the bottom) newest-first.
func newestFirst(entries *triad.Value) bool {
	var stamps []string
	for _, it := range entries.Items {
		if ts := strings.TrimSpace(it.Str("timestamp")); ts != "" {
			stamps = append(stamps, ts)
		}
	}
	if len(stamps) == 0 {
		return false
	}
	vote := 0
	for i := 1; i < len(stamps); i++ {
		switch {
		case stamps[i-1] > stamps[i]:
			vote++
		case stamps[i-1] < stamps[i]:
			vote--
		}
	}
	if vote != 0 {
		return vote > 0
	}
	return stamps[0] >= stamps[len(stamps)-1]
}

// insert adds items, keeping their order, first when the file is
// newest-first, else last. Existing entries never move relative to each
// other.
func insert(entries *triad.Value, items []*triad.Value) {
	insertAs(entries, items, newestFirst(entries))
}

// insertAs is insert with the log's orientation decided by the caller: an
// upsert decides it before removing the entry it replaces, because in a
// loosely sorted log (CLIA's own: its last entry is newer than its second)
// the first entry may be what makes the log read as newest-first.
func insertAs(entries *triad.Value, items []*triad.Value, newest bool) {
	if newest {
		entries.Items = append(append([]*triad.Value{}, items...), entries.Items...)
		return
	}
	entries.Items = append(entries.Items, items...)
}

// insertByTime adds transferred items, which carry their own timestamps:
// into a newest-first log each goes before the first existing entry that is
// older than it (undated items last); otherwise all are appended. Existing
// entries keep their relative order.
func insertByTime(entries *triad.Value, items []*triad.Value) {
	if !newestFirst(entries) {
		entries.Items = append(entries.Items, items...)
		return
	}
	for _, it := range items {
		ts := strings.TrimSpace(it.Str("timestamp"))
		pos := len(entries.Items)
		if ts != "" {
			for i, e := range entries.Items {
				if et := strings.TrimSpace(e.Str("timestamp")); et != "" && et < ts {
					pos = i
					break
				}
			}
		}
		entries.Items = append(entries.Items[:pos], append([]*triad.Value{it}, entries.Items[pos:]...)...)
	}
}

// unionDirs adds dirs to the document's extensions["x-dirsTouched"].
func unionDirs(doc *triad.Value, dirs []string) error {
	ext := doc.Get("extensions")
	if ext == nil || ext.Kind == triad.Null {
		ext = triad.NewObject()
		doc.Set("extensions", ext)
	}
	if ext.Kind != triad.Object {
		return errors.New("extensions is not an object; cannot record x-dirsTouched")
	}
	cur := ext.Get("x-dirsTouched")
	if cur == nil || cur.Kind != triad.Array {
		cur = stringArray(nil)
		ext.Set("x-dirsTouched", cur)
	}
	have := map[string]bool{}
	for _, it := range cur.Items {
		if it.Kind == triad.String {
			have[it.Text] = true
		}
	}
	for _, d := range cleanList(dirs) {
		if !have[d] {
			cur.Items = append(cur.Items, triad.NewString(d))
		}
	}
	return nil
}

// newAgencyDoc is the document created on a context's first write.
func newAgencyDoc(slug string, now time.Time) *triad.Value {
	doc := triad.NewObject()
	doc.Set("schemaVersion", triad.NewString("0.4.0"))
	doc.Set("slug", triad.NewString(slug))
	doc.Set("title", triad.NewString("Agency log: "+slug))
	doc.Set("updated", triad.NewString(now.Format(time.RFC3339)))
	doc.Set("entries", stringArray(nil))
	return doc
}

// updateAgency runs edit on the agency document of t under the directory's
// lock and writes the result atomically when edit reports a change. The
// chosen file's path is stored in *file. The clock is read once the lock is
// held and that time given to edit: writers stamp in the order they write,
// so concurrent writers never put an older stamp above a newer one (which,
// at RFC 3339's whole seconds, could tip the log's newest-first vote).
func updateAgency(ctx context.Context, t Target, slug string, clock func() time.Time, edit func(now time.Time, doc, entries *triad.Value) (bool, error), file *string) error {
	dir, err := openDir(t.Root, t.Dir)
	if err != nil {
		return err
	}
	defer dir.Close()
	if err := checkLock(t.Dir); err != nil {
		return err
	}
	lock, err := fsx.LockFileIn(ctx, dir, lockName)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	now := clock()
	sel, err := selectIn(dir, t.Dir)
	if err != nil {
		return err
	}
	name, exists := sel.Files[triad.Agency]
	if !exists {
		name = slug + "@" + filepath.Base(t.Root) + ".agency.triad.json"
	}
	path := filepath.Join(t.Dir, name)
	*file = path
	if err := checkFile(t.Dir, path); err != nil {
		return err
	}
	// Every writer holds the lock, so a temporary file left now is a killed
	// writer's.
	if err := fsx.RemoveStaleTempsIn(dir, name); err != nil {
		return err
	}
	doc, layout, perm, size := newAgencyDoc(slug, now), triad.EncodeOptions{}, os.FileMode(0o644), 0
	if exists {
		var data []byte
		if doc, layout, perm, data, err = readAgencyIn(dir, name, path); err != nil {
			return err
		}
		size = len(data)
	}
	entries := doc.Get("entries")
	if entries == nil || entries.Kind == triad.Null {
		entries = stringArray(nil)
		doc.Set("entries", entries)
	}
	if entries.Kind != triad.Array {
		return fmt.Errorf("%s: entries is not an array; nothing written", path)
	}
	changed, err := edit(now, doc, entries)
	if err != nil || !changed {
		return err
	}
	return fsx.WriteFileAtomicIn(dir, name, triad.AppendEncode(make([]byte, 0, size+8192), doc, layout), perm)
}

// readIn reads the document name in dir through the root, with errors
// naming its full path.
func readIn(dir *os.Root, name, path string) ([]byte, fs.FileInfo, error) {
	data, fi, err := fsx.ReadRegularIn(dir, name, agents.MaxDocumentBytes)
	var nr *fsx.NotRegularError
	var pe *fs.PathError
	switch {
	case err == nil:
	case errors.As(err, &nr):
		err = &fsx.NotRegularError{Path: path, Kind: nr.Kind}
	case errors.As(err, &pe):
		err = &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	case errors.Is(err, fsx.ErrTooLarge):
		err = fmt.Errorf("%s: %w", path, err)
	}
	return data, fi, err
}

// checkLock refuses a lock file in dir that is not a regular file with a
// message (opening through the root refuses it anyway).
func checkLock(dir string) error {
	lockPath := filepath.Join(dir, lockName)
	if fi, err := os.Lstat(lockPath); err == nil && !fi.Mode().IsRegular() {
		// Opening it would create or lock whatever it points at, outside
		// the target directory.
		return fmt.Errorf("refusing to write: %s is a %s, not a regular file", lockPath, fsx.KindOf(fi.Mode()))
	}
	return nil
}

// readAgencyIn is [readAgency] on the file name in dir (shown as path).
func readAgencyIn(dir *os.Root, name, path string) (*triad.Value, triad.EncodeOptions, os.FileMode, []byte, error) {
	data, fi, err := readIn(dir, name, path)
	if err != nil {
		return nil, triad.EncodeOptions{}, 0, nil, err
	}
	doc, layout, err := decodeAgency(path, data)
	return doc, layout, fi.Mode().Perm(), data, err
}

func readAgency(path string) (*triad.Value, triad.EncodeOptions, os.FileMode, error) {
	data, err := fsx.ReadRegular(path, agents.MaxDocumentBytes)
	if err != nil {
		return nil, triad.EncodeOptions{}, 0, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, triad.EncodeOptions{}, 0, err
	}
	doc, layout, err := decodeAgency(path, data)
	return doc, layout, fi.Mode().Perm(), err
}

// decodeAgency decodes an agency (or day) document read from path.
func decodeAgency(path string, data []byte) (*triad.Value, triad.EncodeOptions, error) {
	doc, err := triad.Decode(path, data)
	if err != nil {
		return nil, triad.EncodeOptions{}, fmt.Errorf("%w; nothing written", err)
	}
	if doc.Kind != triad.Object {
		return nil, triad.EncodeOptions{}, fmt.Errorf("%s: top-level value is not an object; nothing written", path)
	}
	layout := triad.DetectLayout(data)
	layout.SortKeys = triad.KeysSorted(doc)
	return doc, layout, nil
}
