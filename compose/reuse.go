package compose

import (
	"strings"
	"sync"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/internal/tokens"
)

// Sources keeps, between the compiles of one process, what a compile read
// for its system part — the initial AGENTS.md chain of a directory, its
// skills catalog block and an agent's profile block, with their token
// counts — together with the
// trail of every path the reading looked at ([fsx.Trail]: each file read,
// each directory listed and name probed, by modification time, size and
// identity). A compile reuses what is kept while every path of its trail
// is unchanged, and reads again otherwise (a file edited, added or removed
// anywhere the reading looked; also a file changed too recently to tell,
// see [fsx.RacyWindow]), so a reused part is what reading again would
// give.
//
// One Sources serves compiles whose options differ only in the target,
// the agent, the tract and the request's shape (budget, format, model):
// the instruction configuration, home and filesystem (its confinement)
// must stay the same. The MCP server keeps one per client scope. It is
// safe for concurrent use.
type Sources struct {
	mu       sync.Mutex
	parts    map[sourceKey]keptPart
	profiles map[sourceKey]keptProfile
	reads    int
}

// sourceKey is what a kept part was read for besides the options the
// Sources is for: which part, the directory and the token encoding.
type sourceKey struct{ part, dir, encoding string }

type keptPart struct {
	trail *fsx.Trail
	part  instructionPart
}

type keptProfile struct {
	trail    *fsx.Trail
	block    *piece
	warnings []string
}

// maxKeptParts bounds what a Sources keeps (a server's clients compile
// for a few directories); when full it starts over.
const maxKeptParts = 64

// NewSources returns an empty Sources.
func NewSources() *Sources {
	return &Sources{parts: map[sourceKey]keptPart{}, profiles: map[sourceKey]keptProfile{}}
}

// Reads is how many times a compile read its system part's sources
// instead of reusing them.
func (s *Sources) Reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

// instructionsOf is loadInstructions, reused from s while the trail of
// the last reading for dir is fresh.
func (s *Sources) instructionsOf(o Options, dir string, counter tokens.Counter) instructionPart {
	return s.reuse(SourceInstructions, dir, counter, func(trail *fsx.Trail) instructionPart {
		if trail != nil {
			o.Instructions.FS = instructions.Traced(o.Instructions.FS, trail)
		}
		return loadInstructions(o, dir, counter)
	})
}

// skillsOf is loadSkills, reused from s while the trail of the last
// reading for dir is fresh.
func (s *Sources) skillsOf(o Options, dir string, counter tokens.Counter) instructionPart {
	if o.Skills == nil {
		return instructionPart{}
	}
	return s.reuse(SourceSkills, dir, counter, func(trail *fsx.Trail) instructionPart {
		return loadSkills(o, dir, counter, trail)
	})
}

// reuse returns the part kept for (part, dir, encoding) while its trail is
// fresh, else reads it with load on a new trail and keeps it.
func (s *Sources) reuse(part, dir string, counter tokens.Counter, load func(*fsx.Trail) instructionPart) instructionPart {
	if s == nil {
		return load(nil)
	}
	key := sourceKey{part, dir, counter.Encoding()}
	s.mu.Lock()
	kept, ok := s.parts[key]
	s.mu.Unlock()
	if ok && kept.trail.Fresh() {
		return kept.part
	}
	trail := fsx.NewTrail()
	p := load(trail)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.parts) >= maxKeptParts {
		clear(s.parts)
	}
	s.parts[key] = keptPart{trail, p}
	s.reads++
	return p
}

// profileOf is loadProfile, reused from s while the trail of the last
// resolution and merge of the agent from the same path is fresh. A
// refusal (no such agent, a context outside the allowed roots) is not
// kept.
func (s *Sources) profileOf(o Options, dir string, counter tokens.Counter) (*piece, []string, error) {
	if s == nil {
		return loadProfile(o, dir, counter)
	}
	path := o.Agents.Path
	if path == "" {
		path = dir
	}
	key := sourceKey{SourceProfile, path + "\x00" + o.Slug + "\x00" + strings.Join(o.profileFields(), ","), counter.Encoding()}
	s.mu.Lock()
	kept, ok := s.profiles[key]
	s.mu.Unlock()
	if ok && kept.trail.Fresh() {
		return kept.block, kept.warnings, nil
	}
	trail := fsx.NewTrail()
	o.Agents.Trail = trail
	block, warnings, err := loadProfile(o, dir, counter)
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.profiles) >= maxKeptParts {
		clear(s.profiles)
	}
	s.profiles[key] = keptProfile{trail, block, warnings}
	s.reads++
	return block, warnings, nil
}
