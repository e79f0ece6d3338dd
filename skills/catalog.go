package skills

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/internal/tokens"
)

// Scope says where a skill folder comes from.
type Scope string

// The scopes, nearest first.
const (
	ScopeProject Scope = "project" // a directory from the root down to cwd
	ScopeExtra   Scope = "extra"   // a configured folder
	ScopeUser    Scope = "user"    // the user's folders (opt in)
)

// DefaultProjectFolders are the skill folders looked for in every directory
// from the project root down to the working directory, nearest kind first:
// the cross-client .agents/skills (Codelia, Codex, Gemini CLI, opencode),
// then Claude Code's, Codex's older, Gemini CLI's, opencode's, GitHub
// Copilot's and Cursor's own.
var DefaultProjectFolders = []string{".agents/skills", ".claude/skills", ".codex/skills", ".gemini/skills", ".opencode/skills", ".github/skills", ".cursor/skills"}

// DefaultUserFolders are the user-level skill folders, relative to home,
// looked in only when [Options.User] is set.
var DefaultUserFolders = []string{".agents/skills", ".claude/skills", ".codex/skills", ".gemini/skills", ".config/opencode/skills", ".copilot/skills", ".cursor/skills"}

// Limits of a discovery.
const (
	// MaxDepth is how many directories below a skill folder a SKILL.md
	// may be (folder/name/SKILL.md is depth 1).
	MaxDepth = 6
	// DefaultMaxSkills bounds the SKILL.md files read in one discovery.
	DefaultMaxSkills = 2000
	// DefaultMaxDirs bounds the directories listed in one discovery.
	DefaultMaxDirs = 10000
	// DefaultMaxFileBytes is the largest SKILL.md or resource read (as
	// Codelia's resolver: 512 KiB).
	DefaultMaxFileBytes = 512 << 10
)

// SkillFile is the file name that makes a directory a skill.
const SkillFile = "SKILL.md"

// Options say where to look and how.
type Options struct {
	// Cwd is the working directory (absolute); Home the user's home.
	Cwd, Home string
	// Root says how the project root is found (the instructions' rules:
	// CODELIA_AGENTS_ROOT, markers).
	Root instructions.RootConfig
	// ProjectFolders and UserFolders replace the defaults when not nil.
	ProjectFolders, UserFolders []string
	// Extra are more skill folders (absolute), after the project's.
	Extra []string
	// User adds the user's folders (after project and extra ones).
	User bool
	// Limits; zero means the default.
	MaxSkills, MaxDirs int
	MaxFileBytes       int64
	// Tokens counts body tokens; nil means o200k_base.
	Tokens tokens.Counter
	// CacheDir, when set, is a directory of metadata files, one per
	// project root (see [CacheFile]), that keep each SKILL.md's metadata
	// and body token count by (path, mtime, size), so a listing does not
	// parse and count what did not change, and reads only its own
	// project's entries.
	CacheDir string
	// Trail, when set, notes every path the discovery looks at (see
	// [fsx.Trail]): a caller keeping the catalog's block reuses it while
	// the trail is fresh.
	Trail *fsx.Trail
}

// Skill is one skill of the catalog.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Path is the SKILL.md (absolute), Dir its folder.
	Path string `json:"path"`
	Dir  string `json:"dir"`
	// Folder is the skill folder it was found in, Kind that folder's kind.
	Folder     string `json:"folder"`
	Kind       string `json:"kind"`
	Scope      Scope  `json:"scope"`
	BodyTokens int    `json:"bodyTokens"`
	MtimeNs    int64  `json:"mtimeNs"`
	Size       int64  `json:"size"`
	// ShadowedBy is the SKILL.md of the nearer skill of the same name, for
	// an entry of [Catalog.Shadowed].
	ShadowedBy string `json:"shadowedBy,omitzero"`

	rank int
	base *base
	rel  string // the skill folder relative to base.dir
}

// Problem is something wrong with one file: a skill the catalog skipped,
// or a finding of [Lint]. Line is 1-based, 0 when no line applies; Field
// names the front matter key.
type Problem struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitzero"`
	Field   string `json:"field,omitzero"`
	Message string `json:"message"`
}

// String is "PATH:LINE: FIELD: MESSAGE", leaving out what is not set.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(fsx.LineSafe(p.Path))
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(fsx.LineSafe(p.Message))
	return b.String()
}

// Catalog is the result of a discovery.
type Catalog struct {
	Root     instructions.Root `json:"root"`
	Cwd      string            `json:"cwd"`
	Folders  []Folder          `json:"folders"`
	Skills   []Skill           `json:"skills"`
	Shadowed []Skill           `json:"shadowed"`
	// Problems are the SKILL.md files and entries that were skipped, and
	// the warnings of skills loaded anyway.
	Problems []Problem `json:"problems"`
	// Files counts the SKILL.md files looked at, listed or not.
	Files int `json:"files"`
	// Truncated: a limit stopped the discovery early.
	Truncated bool `json:"truncated,omitzero"`

	bases    []*base
	maxBytes int64
}

// Close releases the open directories. A catalog is usable for loading
// until then.
func (c *Catalog) Close() error {
	var errs []error
	for _, b := range c.bases {
		errs = append(errs, b.root.Close())
	}
	c.bases = nil
	return errors.Join(errs...)
}

// Find returns the catalog's skill called name.
func (c *Catalog) Find(name string) (Skill, bool) {
	i, ok := slices.BinarySearchFunc(c.Skills, name, func(s Skill, n string) int { return strings.Compare(s.Name, n) })
	if !ok {
		return Skill{}, false
	}
	return c.Skills[i], true
}
