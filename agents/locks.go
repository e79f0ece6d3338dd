package agents

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
)

// The lock files lineage's writers take (see package journal), and the
// journal of a migrate --write in progress. A lock is held with flock or
// LockFileEx, so it dies with its process; the file is removed by the
// holder before it lets go. A file left behind by a killed writer is
// therefore stale — it blocks nothing, and the next writer takes it over
// and removes it — but it shows in `git status` until then.
const (
	AgencyLockName     = ".agency.lock"
	RosterLockName     = ".roster.lock"
	MigrateLockName    = ".lineage-migrate.lock"
	MigrateJournalName = ".lineage-migrate.journal"
)

// lockFindings reports the lock files of the chain's contexts, their
// agents roots and the workspace root: a stale one (no process holds it) is
// a warning saying how it goes away, a held one is info; and a migrate
// journal, which a killed migrate --write leaves, is a warning saying how
// to finish it.
func lockFindings(p string, ch *Chain, rep *Report) {
	seen := map[string]bool{}
	probe := func(path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		switch st, err := fsx.ProbeLock(path); {
		case err != nil:
			rep.warnf("%v", err)
		case st == LockStateStale:
			rep.warnf("%s: stale lock: no process holds it (a writer was killed); the next write takes it over and removes it, or delete it", path)
		case st == LockStateHeld:
			rep.infof("%s: held by a running writer", path)
		}
	}
	ws := workspaceOrSelf(p)
	probe(filepath.Join(ws, MigrateLockName))
	for _, c := range ch.Contexts {
		probe(filepath.Join(c.Dir, AgencyLockName))
		probe(filepath.Join(filepath.Dir(c.Dir), RosterLockName))
	}
	journal := filepath.Join(ws, MigrateJournalName)
	if fi, err := os.Lstat(journal); err == nil && fi.Mode().IsRegular() {
		rep.warnf("%s: a migrate --write was interrupted; run `lineage agents migrate --write` again to finish it", journal)
	}
}

// backupFindings lists, as info, the .bak files beside the documents of
// the chain's contexts (migrate leaves one per changed document, CLIA's
// normalize-schema its .schema-<version>.bak), with the command that tells
// the safe ones and removes them.
func backupFindings(ch *Chain, rep *Report) {
	for _, c := range ch.Contexts {
		ents, err := os.ReadDir(c.Dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".bak") && len(e.Name()) > len(".bak") {
				rep.infof("%s: a backup; `lineage agents cleanup-backups --dir %s` tells whether the current document holds all it does (--apply then removes it)", filepath.Join(c.Dir, e.Name()), c.Dir)
			}
		}
	}
}

// Lock states, as [fsx.ProbeLock] reports them.
const (
	LockStateHeld  = fsx.LockHeld
	LockStateStale = fsx.LockStale
)
