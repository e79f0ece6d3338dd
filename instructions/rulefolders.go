package instructions

import (
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/agentlineage/lineage/internal/fsx"
)

// Most directories of a chain have no rule folder, and a process that
// loads chains again and again (the MCP server: every instructions_initial
// and context_compile call) would probe each directory's absent
// .agents/rules and .claude/rules every time. absentFolders remembers, per
// directory, the first entry of a rule folder (".claude") found absent,
// with the directory's identity and modification time then: adding,
// removing or renaming an entry of a directory changes its modification
// time, so while a stat of the directory (which exists) shows the same
// two, the entry is still absent and is not probed. The first load that
// sees a directory stats its rule folders as a one-shot process does (and
// nothing more); the second learns which are absent. A directory modified
// within the last few seconds is not remembered (a file system's clock is
// coarse: an entry made in the same tick would leave the time as it was),
// nor one whose identity the file system does not give. A traced FS
// (Traced) probes every time: its trail must hold the folders' own paths,
// not their directories, whose every change would make it stale.
var absentFolders = struct {
	sync.Mutex
	m map[absentKey]absentNote
}{} // m is made on first use: nothing allocated at init

// maxAbsentFolders bounds what absentFolders holds; past it, it starts
// again.
const maxAbsentFolders = 4096

// absentRacyWindow is how recent a directory's modification time may be
// for its absent entries to be remembered.
const absentRacyWindow = 3 * time.Second

type absentKey struct{ dir, name string }

// dirStamp is what tells that a directory's entries are unchanged.
type dirStamp struct {
	id    fsx.FileID
	mtime int64
}

// stampOf is the stamp of directory dir (info from a Stat of it), ok when
// it can be trusted to change with the directory's entries.
func stampOf(dir string, info fs.FileInfo) (dirStamp, bool) {
	if info == nil || !info.IsDir() || time.Since(info.ModTime()) < absentRacyWindow {
		return dirStamp{}, false
	}
	id, ok := fsx.IDOf(dir, info)
	return dirStamp{id: id, mtime: info.ModTime().UnixNano()}, ok
}

// firstName is the first component of a rule folder's slash path.
func firstName(rd string) string {
	first, _, _ := strings.Cut(rd, "/")
	return first
}

// absentNote is what absentFolders holds for an entry of a directory:
// seen once (a one-shot process pays nothing more than the stat of the
// rule folder), or found absent at a stamp.
type absentNote struct {
	st     dirStamp
	absent bool
}

func lookupAbsent(dir, name string) (absentNote, bool) {
	absentFolders.Lock()
	defer absentFolders.Unlock()
	n, ok := absentFolders.m[absentKey{dir, name}]
	return n, ok
}

func noteAbsent(dir, name string, n absentNote) {
	absentFolders.Lock()
	defer absentFolders.Unlock()
	if absentFolders.m == nil {
		absentFolders.m = map[absentKey]absentNote{}
	}
	if len(absentFolders.m) >= maxAbsentFolders {
		clear(absentFolders.m)
	}
	absentFolders.m[absentKey{dir, name}] = n
}

// ruleFolder returns the rule folder rd of dir when it is a directory.
// The first time dir is looked at it stats the folder; after that, it
// stats dir (stamp, once for all its folders) and then the folder's first
// entry only when it was not found absent at the same stamp.
func ruleFolder(fsys FS, dir, rd string, stamp func() (dirStamp, bool)) (string, bool) {
	first := firstName(rd)
	if _, traces := fsys.(interface{ notesPaths() }); !traces && !mayExist(fsys, dir, first, stamp) {
		return "", false
	}
	top := joinName(dir, fromSlash(rd))
	if fi, err := fsys.Stat(top); err == nil && fi.IsDir() {
		return top, true
	}
	return "", false
}

// mayExist reports whether dir's entry first may exist, noting
// what it learns (see absentFolders): false when it is known absent.
func mayExist(fsys FS, dir, first string, stamp func() (dirStamp, bool)) bool {
	n, seen := lookupAbsent(dir, first)
	if !seen {
		noteAbsent(dir, first, absentNote{})
		return true
	}
	st, ok := stamp()
	if !ok {
		return true
	}
	if n.absent && n.st == st {
		return false
	}
	if _, err := fsys.Lstat(joinName(dir, fromSlash(first))); isMissing(err) {
		noteAbsent(dir, first, absentNote{st: st, absent: true})
		return false
	}
	return true
}

// dirStamper is a stamp of dir made on first use, once.
func dirStamper(fsys FS, dir string) func() (dirStamp, bool) {
	var (
		done bool
		st   dirStamp
		ok   bool
	)
	return func() (dirStamp, bool) {
		if !done {
			done = true
			if info, err := fsys.Stat(dir); err == nil {
				st, ok = stampOf(dir, info)
			}
		}
		return st, ok
	}
}
