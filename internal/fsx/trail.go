package fsx

import (
	"io/fs"
	"path/filepath"
	"sync"
	"time"
)

// A Trail records the paths a computation looks at — files it reads,
// directories it lists, names it probes that may not exist — each with its
// state just before the look, so that a result kept from the computation
// can later be checked for staleness by stat calls alone ([Trail.Fresh])
// instead of being computed again.
//
// A path's state is what lstat says (and, for a symbolic link, stat too):
// whether it exists, its type and permission bits, size, modification time,
// change time (Linux) and identity (device and inode). Writing a file
// changes its modification time, replacing it its identity, making a name
// that was missing its existence; a directory listed changes its
// modification time when an entry is added, removed or renamed. A missing
// name is looked at itself again, not through its parent directory, whose
// other entries may come and go all the time (a home directory, /tmp).
//
// Modification times have a coarse granularity on some filesystems (two
// writes within one tick leave the same time): like git's "racily clean"
// entries, a trail in which a path was modified less than [RacyWindow]
// before it was recorded is never fresh, so what changed too recently to
// be told apart is always computed again.
//
// A nil *Trail records nothing: code that takes one calls Note
// unconditionally.
type Trail struct {
	mu     sync.Mutex
	now    func() time.Time
	stamps map[string]stamp
	racy   bool
}

// RacyWindow is how recently before being recorded a path may have been
// modified for its trail still to be trusted.
const RacyWindow = 2 * time.Second

// stamp is a path's state: lstat's, and for a symbolic link stat's too
// (target).
type stamp struct {
	self, target info
}

type info struct {
	exists bool
	mode   fs.FileMode
	size   int64
	mtime  int64
	// ctime is the inode's change time where the platform has one (any
	// write or metadata change sets it; it cannot be set back).
	ctime int64
	id    FileID
}

// NewTrail returns an empty trail.
func NewTrail() *Trail { return &Trail{now: time.Now, stamps: map[string]stamp{}} }

// Note records path's current state (once: a path noted again keeps its
// first state). Call it before looking at path.
func (t *Trail) Note(path string) {
	if t == nil || path == "" {
		return
	}
	path = filepath.Clean(path)
	t.mu.Lock()
	_, seen := t.stamps[path]
	t.mu.Unlock()
	if seen {
		return
	}
	s := stampOf(path)
	t.mu.Lock()
	if _, seen := t.stamps[path]; !seen {
		t.stamps[path] = s
		since := t.now().Add(-RacyWindow).UnixNano()
		t.racy = t.racy || s.self.recent(since) || s.target.recent(since)
	}
	t.mu.Unlock()
}

// NoteAll notes each path.
func (t *Trail) NoteAll(paths ...string) {
	for _, p := range paths {
		t.Note(p)
	}
}

// Fresh reports whether every path noted is in the state it was noted in
// (and none was too recently modified to tell). A nil trail is never fresh.
func (t *Trail) Fresh() bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.racy {
		return false
	}
	for p, s := range t.stamps {
		if stampOf(p) != s {
			return false
		}
	}
	return true
}

// Len is how many paths the trail holds.
func (t *Trail) Len() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.stamps)
}

func (i info) recent(since int64) bool { return i.exists && i.mtime >= since }
