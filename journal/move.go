package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Move renames an agent (a new slug) and/or moves its context to another
// domain of the same workspace (`agents move` / `agents rename`).
type Move struct {
	Slug string
	// To is the new slug; "" keeps it.
	To string
	// ToPath is a path whose write root receives the context (same scope
	// rules as journal); "" keeps the write root.
	ToPath string
	Write  bool
}

// MoveResult says what a move does: every file of the context with its new
// path, and every file outside it whose references change, with a diff.
type MoveResult struct {
	From  string       `json:"from"`
	To    string       `json:"to"`
	Files []MovedFile  `json:"files"`
	Refs  []TidyResult `json:"references"`
	Done  bool         `json:"written"`
	ops   []journalOp
}

// MovedFile is one file of the moved context.
type MovedFile struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Changed: its content changes too (a reference, the slug field).
	Changed bool `json:"changed,omitempty"`
}

// MoveAgent moves the context of m.Slug at its write target to
// <write root of m.ToPath>/<same agents root>/<m.To>, keeping its whole
// history (the agency log, journal/ days, mirrors, every other file):
// top-level documents named "<slug>@…" and mirrors ".generated/<slug>.…"
// take the new slug, a document whose "slug" field is the old slug gets
// the new one, and every reference that leads into the context is
// rewritten in the form it was written in (absolute, "./"/"../", or
// repository-relative) — inherits and extensions.inherits of the moved
// documents, of every triad document of the workspace and of the
// documents their inherits reach, and the context's path cell in the
// repository's AGENTS.md. A reference migrate could not rewrite, a
// symbolic link or anything but a regular file in the context, or an
// existing destination refuses the move before anything is written.
//
// The writes are journaled (see [Migrate]): the new files are created,
// then the references rewritten, then the old files removed, so a profile
// never loses a layer and a killed move finishes on the next run of any
// migrate or move in the workspace.
func MoveAgent(ctx context.Context, opts Options, m Move) (MoveResult, error) {
	if !m.Write {
		return planMove(opts, m)
	}
	ends, err := moveEnds(opts, m)
	if err != nil {
		return MoveResult{}, err
	}
	home, ok := agents.WorkspaceRoot(ends.src.Dir)
	if !ok {
		home = ends.src.Root
	}
	s, err := openMigrateSession(ctx, home)
	if err != nil {
		return MoveResult{}, err
	}
	defer s.close()
	if err := s.finishPending(ctx); err != nil {
		return MoveResult{}, err
	}
	if _, err := os.Lstat(ends.src.Dir); errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Lstat(ends.dst); err == nil {
			// A killed run of this move, finished just now.
			return MoveResult{From: ends.src.Dir, To: ends.dst, Files: []MovedFile{}, Refs: []TidyResult{}, Done: true}, nil
		}
	}
	plan, err := planMove(opts, m)
	if err != nil {
		return plan, err
	}
	if err := s.recordOps(plan.ops); err != nil {
		return plan, err
	}
	if err := applyOps(home, plan.ops); err != nil {
		return plan, err
	}
	plan.Done = true
	return plan, s.done()
}

// moveEnd are where a move starts and ends.
type moveEnd struct {
	src          Target
	dst, dstRoot string
	newSlug      string
}

func moveEnds(opts Options, m Move) (moveEnd, error) {
	src, err := ResolveTarget(opts.Agents, m.Slug, opts.Scope, opts.AgentsDir)
	if err != nil {
		return moveEnd{}, err
	}
	e := moveEnd{src: src, newSlug: m.Slug, dstRoot: src.Root}
	if m.To != "" {
		if err := agents.ValidateSlug(m.To); err != nil {
			return e, err
		}
		e.newSlug = m.To
	}
	if m.ToPath != "" {
		o := opts.Agents
		o.Path = fsx.Abs(opts.Agents.Path, m.ToPath)
		t, err := WriteRoot(o, opts.Scope, opts.AgentsDir)
		if err != nil {
			return e, err
		}
		if t.Workspace != src.Workspace {
			return e, fmt.Errorf("refusing to move %s out of its workspace %s to %s", m.Slug, src.Workspace, t.Root)
		}
		e.dstRoot = t.Root
	}
	rel, err := filepath.Rel(src.Root, filepath.Dir(src.Dir))
	if err != nil {
		return e, err
	}
	e.dst = filepath.Join(e.dstRoot, rel, e.newSlug)
	return e, nil
}

// planMove computes the files, rewrites and operations of m.
func planMove(opts Options, m Move) (MoveResult, error) {
	e, err := moveEnds(opts, m)
	if err != nil {
		return MoveResult{}, err
	}
	res := MoveResult{From: e.src.Dir, To: e.dst, Files: []MovedFile{}, Refs: []TidyResult{}}
	if fi, err := os.Lstat(e.src.Dir); err != nil || !fi.IsDir() {
		return res, fmt.Errorf("no context for %s at %s", m.Slug, e.src.Dir)
	}
	if e.dst == e.src.Dir {
		return res, fmt.Errorf("%s is already at %s", m.Slug, e.dst)
	}
	if _, err := os.Lstat(e.dst); err == nil {
		return res, fmt.Errorf("refusing to move %s: %s already exists", m.Slug, e.dst)
	}
	mv := &mover{from: e.src.Dir, to: e.dst, old: m.Slug, new: e.newSlug, paths: map[string]string{}}
	if err := mv.collect(); err != nil {
		return res, err
	}
	return mv.plan(res, e.src.Root, e.dstRoot)
}

// mover holds a move's plan while it is built.
type mover struct {
	from, to, old, new string
	files              []string
	paths              map[string]string // old path → new path
}

// collect lists the context's files and their new paths.
func (mv *mover) collect() error {
	err := filepath.WalkDir(mv.from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() || name == agents.AgencyLockName || strings.Contains(name, ".tmp-") {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("refusing to move: %s is a %s, not a regular file", p, fsx.KindOf(d.Type()))
		}
		rel, _ := filepath.Rel(mv.from, p)
		dir, base := filepath.Split(rel)
		switch {
		case dir == "" && strings.HasPrefix(base, mv.old+"@"):
			base = mv.new + strings.TrimPrefix(base, mv.old)
		case filepath.Clean(dir) == ".generated" && strings.HasPrefix(base, mv.old+"."):
			base = mv.new + strings.TrimPrefix(base, mv.old)
		}
		mv.files = append(mv.files, p)
		mv.paths[p] = filepath.Join(mv.to, dir, base)
		return nil
	})
	sort.Strings(mv.files)
	return err
}

// plan builds the operations: create every new file, rewrite every
// referrer, remove every old file.
func (mv *mover) plan(res MoveResult, srcRoot, dstRoot string) (MoveResult, error) {
	byReal := map[string]string{}
	for p := range mv.paths {
		byReal[realOf(p)] = p
	}
	var creates, removes []journalOp
	for _, p := range mv.files {
		old, err := fsx.ReadRegular(p, agents.MaxDocumentBytes)
		if err != nil {
			return res, err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return res, err
		}
		data, err := mv.rewriteMoved(p, old)
		if err != nil {
			return res, err
		}
		res.Files = append(res.Files, MovedFile{From: p, To: mv.paths[p], Changed: string(data) != string(old)})
		creates = append(creates, journalOp{Path: mv.paths[p], Data: data, Perm: uint32(fi.Mode().Perm())})
		removes = append(removes, journalOp{Path: p, Old: old, Remove: true})
	}
	refs, err := mv.referrers(byReal, srcRoot, dstRoot)
	if err != nil {
		return res, err
	}
	for _, r := range refs {
		res.Refs = append(res.Refs, TidyResult{File: r.Path, Changed: true, References: r.refs, Diff: string(diff.Diff(r.Path, r.Old, r.Path, r.Data))})
	}
	res.ops = append(append(creates, refOps(refs)...), removes...)
	res.ops = append(res.ops, journalOp{Path: mv.from, RemoveDir: true})
	return res, nil
}

func refOps(refs []refRewrite) []journalOp {
	var out []journalOp
	for _, r := range refs {
		out = append(out, r.journalOp)
	}
	return out
}

// rewriteMoved is the content of moved file p at its new place: its
// references rewritten and its slug field renamed (documents only).
func (mv *mover) rewriteMoved(p string, old []byte) ([]byte, error) {
	if !strings.HasSuffix(p, ".json") {
		return old, nil
	}
	doc, layout, err := decodeAgency(p, old)
	if err != nil {
		return old, nil // not a document: moved as it is
	}
	edits, err := mv.retarget(p, mv.paths[p], doc)
	if err != nil {
		return nil, err
	}
	slugChanged := false
	if s := doc.Get("slug"); s != nil && s.Kind == triad.String && s.Text == mv.old && mv.new != mv.old && filepath.Dir(p) == mv.from {
		doc.Set("slug", triad.NewString(mv.new))
		slugChanged = true
	}
	if len(edits) == 0 && !slugChanged {
		return old, nil
	}
	text, ok := replaceLiterals(old, edits)
	if ok && slugChanged {
		text, ok = replaceSlugMember(text, mv.old, mv.new)
	}
	if ok {
		return text, nil
	}
	return triad.Encode(doc, layout), nil
}

// replaceSlugMember replaces the value of the document's one "slug" member
// in its text; ok is false unless there is exactly one.
func replaceSlugMember(data []byte, old, new string) ([]byte, bool) {
	re := regexp.MustCompile(`"slug"(\s*:\s*)` + regexp.QuoteMeta(string(bytes.TrimSpace(triad.Encode(triad.NewString(old), triad.EncodeOptions{Compact: true})))))
	if len(re.FindAllIndex(data, -1)) != 1 {
		return nil, false
	}
	to := bytes.TrimSpace(triad.Encode(triad.NewString(new), triad.EncodeOptions{Compact: true}))
	return re.ReplaceAllFunc(data, func(m []byte) []byte {
		sep := re.FindSubmatch(m)[1]
		return append(append([]byte(`"slug"`), sep...), to...)
	}), true
}
