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
	Steps   []journalStep `json:"steps"`
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

// pending reads the journal a killed run left, or nil.
func (m *migrateSession) pending() ([]*migStep, error) {
	data, _, err := fsx.ReadRegularIn(m.dir, MigrateJournalName, 1<<30)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var j migrateJournal
	if err := json.Unmarshal(data, &j); err != nil || j.Version != 1 {
		return nil, fmt.Errorf("%s: not a migrate journal lineage can finish (%v); move it away and run again", m.path, err)
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
	return steps, nil
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
