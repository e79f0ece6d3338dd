package tract

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentlineage/lineage/internal/canon"
	"github.com/go-json-experiment/json"
)

// ImportReport counts what an import added.
type ImportReport = ExportReport

// ExportError is a line of an export that is malformed or whose hash does
// not match its fields: nothing of the import is written.
type ExportError struct {
	Line   int
	Reason string
	// Damaged is set when a hash does not match (an integrity finding).
	Damaged bool
}

func (e *ExportError) Error() string { return fmt.Sprintf("import: line %d: %s", e.Line, e.Reason) }

// Unwrap makes a hash mismatch an ErrDamaged.
func (e *ExportError) Unwrap() error {
	if e.Damaged {
		return ErrDamaged
	}
	return ErrInvalidExport
}

// ErrInvalidExport is input that is not a lineage export.
var ErrInvalidExport = errors.New("not a lineage export")

// Export is an export read and checked by ParseExport: every hash
// recomputed. ImportExport adds it to a store.
type Export struct {
	tracts []Tract
	blobs  []Blob
	// commits are in file order, each after what it names.
	commits []Commit
	refs    []Ref
	anns    []Annotation
	// lines maps commits, blobs and refs to their line for messages.
	lines map[string]int
	// hasBlob holds the blobs read so far.
	hasBlob map[Hash]bool
}

// maxExportLine is the longest line read: a blob at MaxContentBytes with
// JSON escaping to spare.
const maxExportLine = 4*MaxContentBytes + 4096

// ParseExport reads an export and checks it on its own: the header, every
// record's fields, every blob and commit hash, and that a commit's content
// comes earlier in the file (parents outside the file are looked up in the
// store by the import).
func ParseExport(rd io.Reader) (*Export, error) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64<<10), maxExportLine)
	p := &Export{lines: map[string]int{}, hasBlob: map[Hash]bool{}}
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var rec exportRecord
		if err := json.Unmarshal(raw, &rec, json.RejectUnknownMembers(true)); err != nil {
			return nil, badExport(line, "not a record: %v", err)
		}
		if line == 1 {
			if err := checkExportHeader(rec); err != nil {
				return nil, &ExportError{Line: line, Reason: err.Error()}
			}
			continue
		}
		if err := p.add(rec, line); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ExportError{Line: line + 1, Reason: err.Error()}
	}
	if line == 0 {
		return nil, &ExportError{Line: 1, Reason: "empty input, want a lineage export"}
	}
	if err := p.checkLinks(); err != nil {
		return nil, err
	}
	return p, nil
}

// checkExportCommit applies the rules a commit is written under to a
// commit of an export: its operation's shape, distinct parents, the
// message limit; "" when it holds.
func checkExportCommit(rec exportRecord, parents []Hash) string {
	seen := make(map[Hash]bool, len(parents))
	for _, h := range append(slices.Clone(parents), rec.Content, rec.EditTarget) {
		if h != "" && !isHexHash(string(h)) {
			return fmt.Sprintf("%q is not a hash", h)
		}
	}
	for _, h := range parents {
		if seen[h] {
			return "parent " + h.Short() + " named twice"
		}
		seen[h] = true
	}
	if len(rec.Message) > MaxMessageBytes {
		return fmt.Sprintf("message of %d bytes, the limit is %d", len(rec.Message), MaxMessageBytes)
	}
	switch rec.Operation {
	case OpAppend:
		if rec.Content == "" || rec.EditTarget != "" {
			return "an append has content and no edit target"
		}
	case OpEdit, OpCompress:
		if rec.Content == "" || rec.EditTarget == "" || len(parents) == 0 {
			return fmt.Sprintf("an %s has content, a parent and an edit target", rec.Operation)
		}
	case OpMerge:
		if rec.Content != "" || rec.EditTarget != "" || len(parents) < 2 {
			return "a merge has two parents or more and no content"
		}
	}
	return ""
}

// checkExportRef applies the ref rules: HEAD names a branch or a commit,
// a branch or a tag (tag:NAME) a commit, every name as git allows.
func checkExportRef(name, value string) string {
	switch {
	case name == HeadRef:
		if b, ok := strings.CutPrefix(value, branchPrefix); ok {
			if err := ValidateBranchName(b); err != nil {
				return err.Error()
			}
			return ""
		}
	case strings.HasPrefix(name, tagPrefix):
		if err := ValidateBranchName(name[len(tagPrefix):]); err != nil {
			return err.Error()
		}
	default:
		if err := ValidateBranchName(name); err != nil {
			return err.Error()
		}
	}
	if !isHexHash(value) {
		return fmt.Sprintf("value %q is not a commit hash", value)
	}
	return ""
}

func isHexHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// printableID reports whether a tract id is 1 to MaxNameBytes printable
// characters without space (a tract id names refs and annotations).
func printableID(id string) bool {
	if id == "" || len(id) > MaxNameBytes || !utf8.ValidString(id) {
		return false
	}
	for _, r := range id {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// checkLinks checks what records of the export say of each other: refs
// and annotations belong to tracts of the export, HEAD names a branch the
// tract has (or none: a tract without commits), annotations name commits
// of the export or a hash (the store is asked on import), and spawn
// pointers between the export's tracts form no cycle.
func (p *Export) checkLinks() error {
	tracts := map[string]Tract{}
	for _, t := range p.tracts {
		if _, dup := tracts[t.ID]; dup {
			return badExport(p.lines["tract:"+t.ID], "tract id %s appears twice", t.ID)
		}
		tracts[t.ID] = t
	}
	branches := map[string]map[string]bool{}
	for _, ref := range p.refs {
		if _, ok := tracts[ref.Tract]; !ok {
			return badExport(p.lines["ref:"+ref.Tract+":"+ref.Name], "ref %q belongs to tract id %s, which is not in the export", ref.Name, ref.Tract)
		}
		if ref.Name != HeadRef && !strings.HasPrefix(ref.Name, tagPrefix) {
			if branches[ref.Tract] == nil {
				branches[ref.Tract] = map[string]bool{}
			}
			branches[ref.Tract][ref.Name] = true
		}
	}
	for _, ref := range p.refs {
		b, ok := strings.CutPrefix(ref.Value, branchPrefix)
		if ref.Name != HeadRef || !ok || branches[ref.Tract][b] || len(branches[ref.Tract]) == 0 {
			continue
		}
		return badExport(p.lines["ref:"+ref.Tract+":"+ref.Name], "HEAD of tract %s names branch %q, which the tract does not have", tracts[ref.Tract].Name, b)
	}
	for i, a := range p.anns {
		if _, ok := tracts[a.Viewer]; !ok {
			return badExport(p.lines[fmt.Sprintf("annotation:%d", i)], "annotation by tract id %s, which is not in the export", a.Viewer)
		}
		if !isHexHash(string(a.Commit)) || (a.Head != "" && !isHexHash(string(a.Head))) {
			return badExport(p.lines[fmt.Sprintf("annotation:%d", i)], "annotation of %q: not a commit hash", a.Commit)
		}
	}
	for _, t := range p.tracts {
		seen := map[string]bool{t.ID: true}
		for at := t; at.Spawn != nil; {
			next, ok := tracts[at.Spawn.Parent]
			if !ok {
				break
			}
			if seen[next.ID] {
				return badExport(p.lines["tract:"+t.ID], "tract %s: its spawn parents form a cycle", t.Name)
			}
			seen[next.ID] = true
			at = next
		}
	}
	return nil
}

// Times a store keeps: every store holds a time as nanoseconds since 1970
// in a signed 64-bit integer, which ends in April 2262; lineage wrote none
// before 1970. A time outside would be stored as another time, and the
// commit would then fail verify (its fields no longer hash to its hash).
var (
	minStoredTime = time.Unix(0, 0).UTC()
	maxStoredTime = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)
)

// checkStoredTime refuses a time a store cannot keep as it is.
func checkStoredTime(field string, t time.Time) error {
	if t.Before(minStoredTime) || !t.Before(maxStoredTime) {
		return fmt.Errorf("%s %s is outside what a store keeps (1970-01-01 to 2261-12-31 UTC)", field, t.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// badExport is the error of a malformed record on line.
func badExport(line int, format string, args ...any) error {
	return &ExportError{Line: line, Reason: fmt.Sprintf(format, args...)}
}

// checkExportHeader accepts the first record: the header of a version this
// lineage reads.
func checkExportHeader(rec exportRecord) error {
	if rec.Kind != exportHeader {
		return errors.New(`want the header {"kind":"lineage-export","version":1}`)
	}
	if rec.Version != ExportVersion {
		return fmt.Errorf("export version %d, this lineage reads version %d", rec.Version, ExportVersion)
	}
	return nil
}

// add checks the record of line and adds it to p.
func (p *Export) add(rec exportRecord, line int) error {
	switch rec.Kind {
	case "tract":
		if rec.ID == "" || rec.Created == nil {
			return badExport(line, "tract needs an id and created")
		}
		if err := ValidateTractName(rec.Name); err != nil {
			return badExport(line, "%v", err)
		}
		if !printableID(rec.ID) {
			return badExport(line, "tract id %q: want 1 to %d printable characters", rec.ID, MaxNameBytes)
		}
		if rec.Spawn != nil && rec.Spawn.Parent == rec.ID {
			return badExport(line, "tract %s spawned from itself", rec.Name)
		}
		if err := checkStoredTime("created", *rec.Created); err != nil {
			return badExport(line, "tract %s: %v", rec.Name, err)
		}
		if rec.Spawn != nil {
			if err := checkStoredTime("spawn time", rec.Spawn.Time); err != nil {
				return badExport(line, "tract %s: %v", rec.Name, err)
			}
		}
		p.lines["tract:"+rec.ID] = line
		p.tracts = append(p.tracts, Tract{ID: rec.ID, Name: rec.Name, Created: *rec.Created, Spawn: rec.Spawn})
	case "blob":
		return p.addBlob(rec, line)
	case "commit":
		return p.addCommit(rec, line)
	case "ref":
		if rec.Tract == "" || rec.Name == "" || rec.Value == "" {
			return badExport(line, "ref needs a tract, a name and a value")
		}
		if err := checkExportRef(rec.Name, rec.Value); err != "" {
			return badExport(line, "ref %q of tract %s: %s", rec.Name, rec.Tract, err)
		}
		p.lines["ref:"+rec.Tract+":"+rec.Name] = line
		p.refs = append(p.refs, Ref{Tract: rec.Tract, Name: rec.Name, Value: rec.Value})
	case "annotation":
		pr, err := ParsePriority(string(rec.Priority))
		if err != nil || rec.Viewer == "" || rec.Commit == "" || rec.Time == nil {
			return badExport(line, "annotation needs a viewer, a commit, a priority and a time")
		}
		if err := checkStoredTime("time", *rec.Time); err != nil {
			return badExport(line, "annotation of %s: %v", rec.Commit.Short(), err)
		}
		p.lines[fmt.Sprintf("annotation:%d", len(p.anns))] = line
		p.anns = append(p.anns, Annotation{Viewer: rec.Viewer, Commit: rec.Commit, Priority: pr, Reason: rec.Reason, Time: rec.Time.UTC(), Head: rec.Head})
	default:
		return badExport(line, "unknown kind %q", rec.Kind)
	}
	return nil
}

// addBlob adds a blob whose data is canonical JSON content hashing to its
// hash (a mismatch is damage); a repeated blob is kept once.
func (p *Export) addBlob(rec exportRecord, line int) error {
	data, err := canon.Canonicalize(rec.Data)
	if len(rec.Data) == 0 || err != nil || !bytes.Equal(data, rec.Data) {
		return badExport(line, "blob %s: data is not canonical JSON", rec.Hash.Short())
	}
	if got := sha256Hex(data); got != rec.Hash {
		return &ExportError{Line: line, Reason: fmt.Sprintf("blob %s: data hashes to %s", rec.Hash, got), Damaged: true}
	}
	if len(data) > MaxContentBytes {
		return badExport(line, "blob %s: %d bytes, the limit for one commit's content is %d", rec.Hash.Short(), len(data), MaxContentBytes)
	}
	c, err := DecodeContent(data)
	if err != nil {
		return badExport(line, "blob %s: %v", rec.Hash.Short(), err)
	}
	// The rules commit applies: a known type, a role it allows, well-formed
	// tool calls and definitions; and the role stored, as commit stores it.
	if n, err := c.Normalize(); err != nil {
		return badExport(line, "blob %s: %v", rec.Hash.Short(), err)
	} else if n.Role != c.Role {
		return badExport(line, "blob %s: no role (commit stores %q)", rec.Hash.Short(), n.Role)
	}
	if !p.hasBlob[rec.Hash] {
		p.hasBlob[rec.Hash] = true
		p.blobs = append(p.blobs, Blob{Hash: rec.Hash, Data: data, Tokens: -1})
	}
	return nil
}

// addCommit adds a commit whose fields hash to its hash (a mismatch is
// damage) and whose content came earlier in the file.
func (p *Export) addCommit(rec exportRecord, line int) error {
	if rec.Time == nil || rec.Tract == "" {
		return badExport(line, "commit %s needs a tract and a time", rec.Hash.Short())
	}
	switch rec.Operation {
	case OpAppend, OpEdit, OpMerge, OpCompress:
	default:
		return badExport(line, "commit %s: operation %q", rec.Hash.Short(), rec.Operation)
	}
	if err := checkStoredTime("time", *rec.Time); err != nil {
		return badExport(line, "commit %s: %v", rec.Hash.Short(), err)
	}
	if len(rec.Meta) > 0 {
		m, err := ParseMeta(rec.Meta)
		if err != nil || !bytes.Equal(m, rec.Meta) {
			return badExport(line, "commit %s: meta is not a canonical JSON object", rec.Hash.Short())
		}
	}
	parents := rec.Parents
	if parents == nil {
		parents = []Hash{}
	}
	if err := checkExportCommit(rec, parents); err != "" {
		return badExport(line, "commit %s: %s", rec.Hash.Short(), err)
	}
	c := Commit{Hash: rec.Hash, Parents: parents, Content: rec.Content, Operation: rec.Operation, EditTarget: rec.EditTarget,
		Tract: rec.Tract, Time: rec.Time.UTC(), Message: rec.Message, Meta: rec.Meta}
	if got := c.ComputeHash(); got != c.Hash {
		return &ExportError{Line: line, Reason: fmt.Sprintf("commit %s: fields hash to %s", rec.Hash, got), Damaged: true}
	}
	if c.Content != "" && !p.hasBlob[c.Content] {
		return badExport(line, "commit %s: content %s is not in the export", c.Hash.Short(), c.Content.Short())
	}
	p.lines["commit:"+string(c.Hash)] = line
	p.commits = append(p.commits, c)
	return nil
}

// ImportExport adds an export ParseExport checked to the store in one
// transaction: its tracts (none may exist, by id or
// live name), blobs, commits (each parent in the export or the store), refs
// and annotations. Nothing is written when anything is wrong.
func (r *Repo) ImportExport(ctx context.Context, p *Export) (ImportReport, error) {
	var rep ImportReport
	err := r.store.Update(ctx, func(tx Tx) error {
		rep = ImportReport{}
		for _, t := range p.tracts {
			if err := tx.CreateTract(ctx, t); err != nil {
				return fmt.Errorf("import: %w", err)
			}
			rep.Tracts++
		}
		if err := tx.PutBlobs(ctx, p.blobs...); err != nil {
			return err
		}
		rep.Blobs = len(p.blobs)
		// Parents outside the export must be stored already.
		known := map[Hash]bool{}
		for _, c := range p.commits {
			known[c.Hash] = true
		}
		for _, c := range p.commits {
			for _, ref := range append(slices.Clone(c.Parents), c.EditTarget) {
				if ref == "" || known[ref] {
					continue
				}
				if _, err := tx.Commit(ctx, ref); err != nil {
					return &ExportError{Line: p.lines["commit:"+string(c.Hash)], Reason: fmt.Sprintf("commit %s names %s, which is neither in the export nor in the store", c.Hash.Short(), ref.Short())}
				}
				known[ref] = true
			}
		}
		if err := putCommits(ctx, tx, topoOrder(p.commits)...); err != nil {
			return err
		}
		rep.Commits = len(p.commits)
		for _, ref := range p.refs {
			v := ref.Value
			if !strings.HasPrefix(v, branchPrefix) {
				if _, err := tx.Commit(ctx, Hash(v)); err != nil {
					return &ExportError{Line: p.lines["ref:"+ref.Tract+":"+ref.Name], Reason: fmt.Sprintf("ref %s points at missing commit %s", ref.Name, Hash(v).Short())}
				}
			}
			if err := tx.UpdateRef(ctx, RefUpdate{Tract: ref.Tract, Name: ref.Name, New: v, Operation: "import", Time: r.clock()}); err != nil {
				return fmt.Errorf("import ref %s: %w", ref.Name, err)
			}
			rep.Refs++
		}
		for i, a := range p.anns {
			if !known[a.Commit] {
				if _, err := tx.Commit(ctx, a.Commit); err != nil {
					return &ExportError{Line: p.lines[fmt.Sprintf("annotation:%d", i)], Reason: fmt.Sprintf("annotation of %s, which is neither in the export nor in the store", a.Commit.Short())}
				}
				known[a.Commit] = true
			}
			if err := tx.AddAnnotation(ctx, a); err != nil {
				return err
			}
			rep.Annotations++
		}
		return nil
	})
	if err != nil {
		return ImportReport{}, err
	}
	return rep, nil
}
