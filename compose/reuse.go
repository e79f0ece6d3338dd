package compose

import (
	"io"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/internal/tokens"
)

// Sources keeps, between the compiles of one process, what a compile read
// for its system part — the initial AGENTS.md chain of a directory, with
// its token counts — together with the trail of every path the reading
// looked at ([fsx.Trail]: each file read, each directory and name probed,
// by modification time, size and identity). A compile reuses what is kept
// while every path of its trail is unchanged, and reads again otherwise
// (a file edited, added or removed anywhere the chain's loading looked;
// also a file changed too recently to tell, see [fsx.RacyWindow]), so a
// reused part is what reading again would give.
//
// One Sources serves compiles whose options differ only in the target,
// the agent, the tract and the request's shape (budget, format, model):
// the instruction configuration, home and filesystem (its confinement)
// must stay the same. The MCP server keeps one per client scope. It is
// safe for concurrent use.
type Sources struct {
	mu           sync.Mutex
	instructions map[sourceKey]keptPart
	reads        int
}

// sourceKey is what a kept part was read for besides the options the
// Sources is for: the chain's directory and the token encoding.
type sourceKey struct{ dir, encoding string }

type keptPart struct {
	trail *fsx.Trail
	part  instructionPart
}

// maxKeptParts bounds what a Sources keeps (a server's clients compile
// for a few directories); when full it starts over.
const maxKeptParts = 64

// NewSources returns an empty Sources.
func NewSources() *Sources { return &Sources{instructions: map[sourceKey]keptPart{}} }

// Reads is how many times a compile read its system part's sources
// instead of reusing them.
func (s *Sources) Reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

// instructionsOf is loadInstructions, reused from s when the trail of the
// last reading for dir is unchanged.
func (s *Sources) instructionsOf(o Options, dir string, counter tokens.Counter) instructionPart {
	if s == nil {
		return loadInstructions(o, dir, counter)
	}
	key := sourceKey{dir, counter.Encoding()}
	s.mu.Lock()
	kept, ok := s.instructions[key]
	s.mu.Unlock()
	if ok && kept.trail.Fresh() {
		return kept.part
	}
	trail := fsx.NewTrail()
	o.Instructions.FS = tracedFS(o.Instructions.FS, trail)
	part := loadInstructions(o, dir, counter)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.instructions) >= maxKeptParts {
		clear(s.instructions)
	}
	s.instructions[key] = keptPart{trail, part}
	s.reads++
	return part
}

// tracedFS notes on trail every path looked at through fsys (nil: the
// operating system's) before passing the call on, keeping the optional
// interfaces fsys has (an import opener, a directory lister) and only
// those: the loader behaves as it does on fsys itself.
func tracedFS(fsys instructions.FS, trail *fsx.Trail) instructions.FS {
	if fsys == nil {
		fsys = instructions.OS
	}
	base := traced{fsys, trail}
	ro, isRO := fsys.(instructions.RootOpener)
	dr, isDR := fsys.(instructions.DirReader)
	switch {
	case isRO && isDR:
		return struct {
			traced
			tracedOpener
			tracedLister
		}{base, tracedOpener{ro, trail}, tracedLister{dr, trail}}
	case isRO:
		return struct {
			traced
			tracedOpener
		}{base, tracedOpener{ro, trail}}
	case isDR:
		return struct {
			traced
			tracedLister
		}{base, tracedLister{dr, trail}}
	}
	return base
}

type traced struct {
	fs    instructions.FS
	trail *fsx.Trail
}

func (t traced) Stat(name string) (fs.FileInfo, error) {
	t.trail.Note(name)
	return t.fs.Stat(name)
}

func (t traced) Lstat(name string) (fs.FileInfo, error) {
	t.trail.Note(name)
	return t.fs.Lstat(name)
}

func (t traced) OpenRegular(name string) (io.ReadCloser, error) {
	t.trail.Note(name)
	return t.fs.OpenRegular(name)
}

type tracedOpener struct {
	ro    instructions.RootOpener
	trail *fsx.Trail
}

func (t tracedOpener) OpenRegularIn(dir, name string) (io.ReadCloser, error) {
	t.trail.Note(dir)
	t.trail.Note(filepath.Join(dir, name))
	return t.ro.OpenRegularIn(dir, name)
}

type tracedLister struct {
	dr    instructions.DirReader
	trail *fsx.Trail
}

func (t tracedLister) ReadDir(name string) ([]fs.DirEntry, error) {
	t.trail.Note(name)
	return t.dr.ReadDir(name)
}
