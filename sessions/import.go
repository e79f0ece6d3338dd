package sessions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
)

// Importer maps session transcripts into the tracts of a repo.
type Importer struct {
	Repo *tract.Repo
	// Readers reads each harness; nil is DefaultReaders().
	Readers map[Harness]Reader
	// KeepSecrets stores what looks like a secret in clear; by default it
	// is masked before anything is stored.
	KeepSecrets bool
	// LockPath, when set, is a lock file held for the whole import: two
	// processes importing into one store (a hook recording a turn while
	// the user imports) take turns, so neither stores a record the other
	// just stored. Without it the caller serialises imports itself.
	LockPath string
	// indexReady says the import in progress found the index tract.
	indexReady bool
}

// DefaultReaders are the readers lineage has, by harness.
func DefaultReaders() map[Harness]Reader {
	out := map[Harness]Reader{}
	for _, r := range readers {
		out[r.Harness()] = r
	}
	return out
}

// readers lists every reader (a list built at compile time: lineage keeps
// an init allocation budget, see TestInitBudget).
var readers = []Reader{ClaudeReader{}, CodexReader{}, GeminiReader{}}

// IndexTract is the tract whose metadata holds the importer's cursors: one
// entry per transcript file read, so a grown file is read from where the
// last import stopped.
const IndexTract = "lineage-sessions"

// Report is what an import did.
type Report struct {
	Sessions []SessionReport `json:"sessions"`
	// Totals over the sessions.
	Records  int `json:"records"`
	Added    int `json:"added"`
	Existing int `json:"existing"`
	Unmapped int `json:"unmapped"`
	Skipped  int `json:"skipped"`
	Masked   int `json:"masked"`
}

// SessionReport is what an import did with one transcript file.
type SessionReport struct {
	Harness Harness `json:"harness"`
	Session string  `json:"session"`
	Tract   string  `json:"tract"`
	Path    string  `json:"path"`
	// Records is how many records the reader gave; each is Added (a new
	// commit), Existing (already stored: a re-import, or a fork's copy of
	// its origin) or kept Aside on the meta branch (counted in Added or
	// Existing too).
	Records  int `json:"records"`
	Added    int `json:"added"`
	Existing int `json:"existing"`
	Aside    int `json:"aside"`
	// Unmapped records are kept verbatim as metadata commits.
	Unmapped int `json:"unmapped"`
	// Skipped lines restate what other records hold (by type in the
	// reader's Batch); they are counted, not stored.
	Skipped   int `json:"skipped"`
	Masked    int `json:"masked"`
	Summaries int `json:"summaries"`
	Branches  int `json:"branches"`
	// Spawn is set when the session's tract was spawned from another one
	// (a subagent, a fork).
	Spawn *Link `json:"spawn,omitempty"`
	// IndexReads counts the stored commits read to find record keys: 0
	// when a grown file's new records follow what the last import stored.
	IndexReads int      `json:"indexReads"`
	Warnings   []string `json:"warnings,omitempty"`
}

// cursorState is one file's cursor as the index tract keeps it.
type cursorState struct {
	Path  string `json:"path"`
	Tract string `json:"tract"`
	Cursor
	// LastCommit is the commit of Cursor.LastKey.
	LastCommit tract.Hash `json:"lastCommit,omitempty"`
}

func cursorKey(path string) string {
	sum := sha256.Sum256([]byte(path))
	return "cursor." + hex.EncodeToString(sum[:12])
}

// pendingSource is a file read and waiting to be mapped.
type pendingSource struct {
	src   Source
	batch Batch
	state cursorState
}

// Import reads every source (and the files their readers relate to them,
// such as Claude's subagent files) from its stored cursor and maps the new
// records into tract. Origins are imported before what came from them.
func (im *Importer) Import(ctx context.Context, srcs []Source) (Report, error) {
	if im.Readers == nil {
		im.Readers = DefaultReaders()
	}
	if im.LockPath != "" {
		l, err := fsx.LockFile(ctx, im.LockPath)
		if err != nil {
			return Report{}, err
		}
		defer l.Unlock()
	}
	cursors, err := im.cursors(ctx)
	if err != nil {
		return Report{}, err
	}
	var pending []*pendingSource
	seen := map[string]bool{}
	for i := 0; i < len(srcs); i++ {
		src := srcs[i]
		if abs, err := filepath.Abs(src.Path); err == nil {
			src.Path = abs
		}
		if seen[src.Path] {
			continue
		}
		seen[src.Path] = true
		p, err := im.read(ctx, src, cursors[cursorKey(src.Path)])
		if err != nil {
			return Report{}, err
		}
		pending = append(pending, p)
		srcs = append(srcs, p.batch.Related...)
	}
	var rep Report
	mapped := map[string]map[string]*node{}
	for _, p := range orderByOrigin(pending) {
		sr, err := im.mapSource(ctx, p, mapped)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", p.src.Path, err)
		}
		rep.add(sr)
	}
	return rep, nil
}

func (r *Report) add(s SessionReport) {
	r.Sessions = append(r.Sessions, s)
	r.Records += s.Records
	r.Added += s.Added
	r.Existing += s.Existing
	r.Unmapped += s.Unmapped
	r.Skipped += s.Skipped
	r.Masked += s.Masked
}

// read reads a source from its cursor; a cursor that no longer fits the
// file reads it again from the start (keys make that idempotent).
func (im *Importer) read(ctx context.Context, src Source, st cursorState) (*pendingSource, error) {
	rd, ok := im.Readers[src.Harness]
	if !ok {
		return nil, fmt.Errorf("%s: no reader for harness %q", src.Path, src.Harness)
	}
	st.Path = src.Path
	b, err := rd.Read(ctx, src, st.Cursor)
	if errors.Is(err, ErrCursorStale) {
		st = cursorState{Path: src.Path}
		b, err = rd.Read(ctx, src, Cursor{})
	}
	if err != nil {
		return nil, err
	}
	if b.Session.ID == "" {
		return nil, fmt.Errorf("%s: the reader found no session id", src.Path)
	}
	return &pendingSource{src: src, batch: b, state: st}, nil
}

// orderByOrigin puts each session after the session it came from when both
// are in the list; otherwise the order stays.
func orderByOrigin(ps []*pendingSource) []*pendingSource {
	var out []*pendingSource
	done := map[string]bool{}
	inList := map[string]bool{}
	for _, p := range ps {
		inList[sessionRef(p.batch.Session.Harness, p.batch.Session.ID)] = true
	}
	left := ps
	for len(left) > 0 {
		var next []*pendingSource
		for _, p := range left {
			o := p.batch.Session.Origin
			if o != nil && inList[sessionRef(o.Harness, o.Session)] && !done[sessionRef(o.Harness, o.Session)] {
				next = append(next, p)
				continue
			}
			out = append(out, p)
			done[sessionRef(p.batch.Session.Harness, p.batch.Session.ID)] = true
		}
		if len(next) == len(left) {
			// A cycle, which no harness writes: keep the file order.
			return append(out, next...)
		}
		left = next
	}
	return out
}

func sessionRef(h Harness, id string) string { return string(h) + "\x00" + id }

// TractName is the tract a session is imported into: the harness and the
// session id, with what a tract name cannot hold replaced by "-".
func TractName(h Harness, id string) string {
	var b strings.Builder
	b.WriteString(string(h))
	b.WriteByte('-')
	for _, c := range id {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// cursors reads the stored cursors by key.
func (im *Importer) cursors(ctx context.Context) (map[string]cursorState, error) {
	meta, err := im.Repo.TractMeta(ctx, IndexTract)
	im.indexReady = err == nil
	if errors.Is(err, tract.ErrNotFound) {
		return map[string]cursorState{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]cursorState, len(meta))
	for _, m := range meta {
		if !strings.HasPrefix(m.Key, "cursor.") {
			continue
		}
		var st cursorState
		if err := json.Unmarshal([]byte(m.Value), &st); err != nil {
			continue // a damaged cursor reads the file again: keys keep that idempotent
		}
		out[m.Key] = st
	}
	return out, nil
}

// cursorJSON is a cursor as the index tract keeps it (a cursorState
// always marshals).
func cursorJSON(st cursorState) string {
	data, _ := json.Marshal(st)
	return string(data)
}

// indexTract makes the index tract unless this import found it or made it.
func (im *Importer) indexTract(ctx context.Context) error {
	if im.indexReady {
		return nil
	}
	if _, err := im.Repo.NewTract(ctx, IndexTract); err != nil && !errors.Is(err, tract.ErrExists) {
		return err
	}
	im.indexReady = true
	return nil
}
