package tract

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Hash is a lowercase hex SHA-256.
type Hash string

// Short is the first 8 characters of h, for display.
func (h Hash) Short() string {
	if len(h) > 8 {
		return string(h[:8])
	}
	return string(h)
}

// Priority decides whether a commit is compiled and what a budget drops.
type Priority string

// Priorities, lowest first.
const (
	Skip      Priority = "skip"
	Normal    Priority = "normal"
	Important Priority = "important"
	Pinned    Priority = "pinned"
)

// ParsePriority accepts skip, normal, important and pinned.
func ParsePriority(s string) (Priority, error) {
	switch p := Priority(s); p {
	case Skip, Normal, Important, Pinned:
		return p, nil
	}
	return "", &ValidationError{Field: "priority", Value: s, Reason: "want skip, normal, important or pinned"}
}

// Operation is what a commit does.
type Operation string

// Operations.
const (
	OpAppend Operation = "append"
	OpEdit   Operation = "edit"
	OpMerge  Operation = "merge"
	// OpCompress records a summary standing in for a range of the history
	// (see compress.go): its content is a summary, its edit target the
	// range's newest commit.
	OpCompress Operation = "compress"
)

// Commit is a node of the DAG. Its hash covers every field but Hash, the
// author tract included, so equal commits by two tracts differ.
type Commit struct {
	Hash Hash `json:"hash"`
	// Parents are ordered: position 0 is the first parent. They may belong to
	// other tracts.
	Parents    []Hash    `json:"parents"`
	Content    Hash      `json:"content,omitempty"`
	Operation  Operation `json:"operation"`
	EditTarget Hash      `json:"editTarget,omitempty"`
	// Tract is the author tract's id.
	Tract   string    `json:"tract"`
	Time    time.Time `json:"time"`
	Message string    `json:"message,omitempty"`
	// Meta is a JSON object the caller attached, in canonical form: kept,
	// hashed, searchable (tract find --meta), never rendered.
	Meta jsontext.Value `json:"meta,omitzero"`
	// Pos is where the commit sits in the DAG, kept by the store beside it
	// (not hashed, not shown).
	Pos Position `json:"-"`
}

// hashedCommit is the canonical form hashed for a commit.
type hashedCommit struct {
	Parents    []Hash         `json:"parents"`
	Content    Hash           `json:"content,omitempty"`
	Operation  Operation      `json:"operation"`
	EditTarget Hash           `json:"editTarget,omitempty"`
	Tract      string         `json:"tract"`
	Time       string         `json:"time"`
	Message    string         `json:"message,omitempty"`
	Meta       jsontext.Value `json:"meta,omitzero"`
}

// ComputeHash returns the hash c's fields give (ignoring c.Hash).
func (c Commit) ComputeHash() Hash {
	return sha256Hex(canonicalCommit(c))
}

// Tract is one agent's context history.
type Tract struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
	// Spawn is set for a tract created by spawn.
	Spawn *SpawnPointer `json:"spawn,omitempty"`
	// Deleted is set once the tract is removed; its commits may live on.
	Deleted time.Time `json:"deleted,omitzero"`
}

// SpawnMode is how a child starts.
type SpawnMode string

// Spawn modes.
const (
	SpawnReference SpawnMode = "reference"
	SpawnSnapshot  SpawnMode = "snapshot"
	SpawnEmpty     SpawnMode = "empty"
)

// SpawnPointer records where a child tract came from.
type SpawnPointer struct {
	Parent  string    `json:"parent"` // parent tract id
	Commit  Hash      `json:"commit,omitempty"`
	Purpose string    `json:"purpose"`
	Mode    SpawnMode `json:"mode"`
	Time    time.Time `json:"time"`
}

// tractID derives a tract's id from its name and creation time; attempt
// disambiguates the rare re-creation of a name at the same instant.
func tractID(name string, created time.Time, attempt int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%d", name, created.UTC().Format(time.RFC3339Nano), attempt)))
	return hex.EncodeToString(sum[:8])
}

// HeadRef is the name of a tract's HEAD.
const HeadRef = "HEAD"

// Ref is a tract's named pointer. A branch's Value is a commit hash; HEAD's
// Value is "branch:NAME" (attached) or a commit hash (detached).
type Ref struct {
	Tract string `json:"tract"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

const branchPrefix = "branch:"

// RefUpdate is one compare-and-swap of a ref. Old "" means the ref must not
// exist; New "" deletes it. Every update is written to the reflog.
type RefUpdate struct {
	Tract     string
	Name      string
	Old       string
	New       string
	Operation string
	Time      time.Time
}

// ReflogEntry is one recorded ref move.
type ReflogEntry struct {
	Seq       int64     `json:"seq"`
	Tract     string    `json:"tract"`
	Ref       string    `json:"ref"`
	Old       string    `json:"old"`
	New       string    `json:"new"`
	Operation string    `json:"operation"`
	Time      time.Time `json:"time"`
}

// Annotation sets the priority of a commit as seen by one viewer tract.
// Annotations are append-only; the newest (highest Seq) per viewer and
// commit counts.
type Annotation struct {
	Seq      int64     `json:"seq"`
	Viewer   string    `json:"viewer"`
	Commit   Hash      `json:"commit"`
	Priority Priority  `json:"priority"`
	Reason   string    `json:"reason,omitempty"`
	Time     time.Time `json:"time"`
	// Head is the viewer's head when the annotation was made: it places the
	// annotation on a branch so merges can see which side skipped a commit.
	Head Hash `json:"head,omitempty"`
}
