package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// MigrateJournalName is the journal of a migrate --write in progress, at
// the workspace root of the tree it migrates (see [Migrate]); it exists
// only while a run writes, or after a run was killed.
const MigrateJournalName = agents.MigrateJournalName

// migrateLockName serializes migrate runs of one workspace.
const migrateLockName = agents.MigrateLockName

// migrateHook, when set (by tests), is called before every change a
// migrate --write makes to the tree, with a name for it; a test kills the
// process there to prove that a rerun converges.
var migrateHook func(op string)

func hook(op string) {
	if migrateHook != nil {
		migrateHook(op)
	}
}

// migrateJournal is what the journal holds: every planned change with the
// bytes before and after, so a rerun can finish it without planning again
// (a half-renamed tree plans differently).
type migrateJournal struct {
	Version int           `json:"version"`
	Steps   []journalStep `json:"steps,omitempty"`
	Ops     []journalOp   `json:"ops,omitempty"`
}

type journalStep struct {
	File   string        `json:"file"`
	Target string        `json:"target"`
	Base   string        `json:"base,omitempty"`
	Perm   uint32        `json:"perm"`
	Old    []byte        `json:"old"`
	Data   []byte        `json:"data"`
	First  []byte        `json:"first,omitempty"`
	Refs   bool          `json:"refs,omitempty"`
	Mirror bool          `json:"mirror,omitempty"`
	Result TidyResult    `json:"result"`
	Kind   triad.DocKind `json:"kind,omitempty"`
}

// migrateHome is the directory holding the journal and the lock of a
// migrate of t: the workspace root of the tree t selects.
func migrateHome(opts Options, t Tidy) (string, error) {
	base := ""
	switch {
	case (t.Slug == "") == (t.Dir == ""):
		return "", fmt.Errorf("give exactly one of a slug or a directory")
	case t.Slug != "":
		tg, err := ResolveTarget(opts.Agents, t.Slug, opts.Scope, opts.AgentsDir)
		if err != nil {
			return "", err
		}
		base = tg.Root
	default:
		base = fsx.Abs(opts.Agents.Path, t.Dir)
	}
	if ws, ok := agents.WorkspaceRoot(base); ok {
		return ws, nil
	}
	return base, nil
}

// migrateSession is a held migrate lock with the journal's directory.
type migrateSession struct {
	dir  *os.Root
	path string
	lock *fsx.Lock
}

func openMigrateSession(ctx context.Context, home string) (*migrateSession, error) {
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("directory %s does not exist", home)
	}
	d, err := os.OpenRoot(home)
	if err != nil {
		return nil, err
	}
	if fi, err := d.Lstat(migrateLockName); err == nil && !fi.Mode().IsRegular() {
		d.Close()
		return nil, fmt.Errorf("refusing to write: %s is a %s, not a regular file", filepath.Join(home, migrateLockName), fsx.KindOf(fi.Mode()))
	}
	hook("lock")
	l, err := fsx.LockFileIn(ctx, d, migrateLockName)
	if err != nil {
		d.Close()
		return nil, err
	}
	if err := fsx.RemoveStaleTempsIn(d, MigrateJournalName); err != nil {
		l.Unlock()
		d.Close()
		return nil, err
	}
	return &migrateSession{dir: d, path: filepath.Join(home, MigrateJournalName), lock: l}, nil
}

func (m *migrateSession) close() {
	m.lock.Unlock()
	m.dir.Close()
}

// pendingAll reads the journal a killed migrate or move left: its steps
// or its operations (nil, nil when there is none).
func (m *migrateSession) pendingAll() ([]*migStep, []journalOp, error) {
	data, _, err := fsx.ReadRegularIn(m.dir, MigrateJournalName, 1<<30)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var j migrateJournal
	if err := json.Unmarshal(data, &j); err != nil || j.Version != 1 {
		return nil, nil, fmt.Errorf("%s: not a journal lineage can finish (%v); move it away and run again", m.path, err)
	}
	if j.Ops != nil {
		return nil, j.Ops, nil
	}
	steps := make([]*migStep, 0, len(j.Steps))
	for _, js := range j.Steps {
		s := &migStep{file: js.File, target: js.Target, base: js.Base, perm: os.FileMode(js.Perm),
			old: js.Old, data: js.Data, first: js.First, mirror: js.Mirror, kind: js.Kind, res: js.Result}
		if js.Refs {
			s.refs = js.Result.References
			if s.refs == nil {
				s.refs = []string{}
			}
		}
		s.res.Written = false
		steps = append(steps, s)
	}
	return steps, nil, nil
}

// record writes the journal of the changed steps before any of them is
// applied.
func (m *migrateSession) record(steps []*migStep) error {
	j := migrateJournal{Version: 1}
	for _, s := range steps {
		if !s.res.Changed {
			continue
		}
		js := journalStep{File: s.file, Target: s.target, Base: s.base, Perm: uint32(s.perm), Old: s.old, Data: s.data,
			First: s.first, Refs: s.refs != nil, Mirror: s.mirror, Result: s.res, Kind: s.kind}
		js.Result.Diff = ""
		j.Steps = append(j.Steps, js)
	}
	if len(j.Steps) == 0 {
		return nil
	}
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	hook("journal")
	return fsx.WriteFileAtomicIn(m.dir, MigrateJournalName, data, 0o644)
}

// done removes the journal once every step it lists is applied.
func (m *migrateSession) done() error {
	if _, err := m.dir.Lstat(MigrateJournalName); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	hook("journal-remove")
	return m.dir.Remove(MigrateJournalName)
}

// journalOp is one change of a journaled move: a file written (Old nil: a
// new file), a file removed (Remove, when it still holds Old), or the empty
// directories under Path removed (RemoveDir). Applying one again is a no-op.
type journalOp struct {
	Path      string `json:"path"`
	Data      []byte `json:"data,omitempty"`
	Old       []byte `json:"old,omitempty"`
	Perm      uint32 `json:"perm,omitempty"`
	Remove    bool   `json:"remove,omitempty"`
	RemoveDir bool   `json:"removeDir,omitempty"`
}

// recordOps writes the journal of a move before any of its operations.
func (m *migrateSession) recordOps(ops []journalOp) error {
	data, err := json.Marshal(migrateJournal{Version: 1, Ops: ops})
	if err != nil {
		return err
	}
	hook("journal")
	return fsx.WriteFileAtomicIn(m.dir, MigrateJournalName, data, 0o644)
}

// finishPending applies what the journal of a killed migrate or move
// still lists, then removes the journal.
func (m *migrateSession) finishPending(ctx context.Context) error {
	steps, ops, err := m.pendingAll()
	if err != nil || (steps == nil && ops == nil) {
		return err
	}
	if steps != nil {
		if _, err := applyMigration(ctx, steps); err != nil {
			return fmt.Errorf("finish the interrupted migrate recorded in %s: %w", m.path, err)
		}
	}
	if ops != nil {
		if err := applyOps(filepath.Dir(m.path), ops); err != nil {
			return fmt.Errorf("finish the interrupted move recorded in %s: %w", m.path, err)
		}
	}
	return m.done()
}

// applyOps applies a move's operations in order (see journalOp), every
// write inside home.
func applyOps(home string, ops []journalOp) error {
	for _, op := range ops {
		var err error
		switch {
		case op.RemoveDir:
			err = removeEmptyDirs(op.Path)
		case op.Remove:
			err = removeIfOld(home, op)
		default:
			err = writeOp(home, op)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func writeOp(home string, op journalOp) error {
	d, err := openDir(home, filepath.Dir(op.Path))
	if err != nil {
		return err
	}
	defer d.Close()
	name := filepath.Base(op.Path)
	now, _, err := readIn(d, name, op.Path)
	switch {
	case err == nil && string(now) == string(op.Data):
		return nil
	case errors.Is(err, fs.ErrNotExist) && op.Old == nil:
	case err == nil && op.Old != nil && string(now) == string(op.Old):
	default:
		return errConcurrent(op.Path, err)
	}
	hook("write " + op.Path)
	return fsx.WriteFileAtomicIn(d, name, op.Data, os.FileMode(op.Perm&0o777|0o600))
}

func removeIfOld(home string, op journalOp) error {
	d, err := openDir(home, filepath.Dir(op.Path))
	if err != nil {
		return err
	}
	defer d.Close()
	name := filepath.Base(op.Path)
	now, _, err := readIn(d, name, op.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil || string(now) != string(op.Old) {
		return errConcurrent(op.Path, err)
	}
	hook("remove " + op.Path)
	return d.Remove(name)
}

// removeEmptyDirs removes dir and the directories under it, deepest
// first, when they are empty; a file left in them is an error naming it.
func removeEmptyDirs(dir string) error {
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		return fmt.Errorf("%s is left in the moved context; remove it and run again", p)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	hook("rmdir " + dir)
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Remove(dirs[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
