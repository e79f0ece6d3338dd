package tract

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors callers branch on. Returned errors wrap them with context.
var (
	ErrNotFound      = errors.New("not found")
	ErrExists        = errors.New("already exists")
	ErrBranchMoved   = errors.New("branch moved")
	ErrAmbiguous     = errors.New("ambiguous")
	ErrConflict      = errors.New("merge conflict")
	ErrNoCommits     = errors.New("no commits yet")
	ErrCurrentBranch = errors.New("current branch")
	ErrUnmerged      = errors.New("not fully merged")
	ErrReadOnly      = errors.New("store opened read-only")
	// ErrDamaged is stored data that is not what its hash or the database
	// format says (a store wraps it around "database disk image is
	// malformed" and the like).
	ErrDamaged = errors.New("store damaged")
	// ErrOldSchema is a lineage store on a schema older than this
	// lineage's, met by a read-only open: reads never migrate, a writable
	// open (lineage tract migrate, any write command) does.
	ErrOldSchema = errors.New("store on an older schema")
)

// OldSchemaError is a read-only open of a store on an older schema. Reads
// never migrate, so the message says what does. It is an [ErrOldSchema].
type OldSchemaError struct {
	// Store names the store as a user knows it: a path, or user@host:port/db
	// (never a password).
	Store            string
	Version, Current int
	// NotWritable says this user may not write the store, so cannot
	// migrate it.
	NotWritable bool
}

func (e *OldSchemaError) Error() string {
	if e.NotWritable {
		return fmt.Sprintf("store %s: schema version %d is older than this lineage's (%d), and this user cannot write it: its owner must run 'lineage tract migrate' once to upgrade it",
			e.Store, e.Version, e.Current)
	}
	return fmt.Sprintf("store %s: schema version %d is older than this lineage's (%d): run 'lineage tract migrate' once to upgrade it (any write command also does)",
		e.Store, e.Version, e.Current)
}

func (e *OldSchemaError) Unwrap() error { return ErrOldSchema }

// IntegrityError is content that does not match its hash: compile refuses
// to render it.
type IntegrityError struct {
	Commit Hash
	Blob   Hash
	Got    Hash
}

func (e *IntegrityError) Error() string {
	return fmt.Sprintf("commit %s: blob %s hashes to %s: content damaged, refusing to render it (run 'lineage tract verify')", e.Commit.Short(), e.Blob.Short(), e.Got.Short())
}

// Unwrap makes an IntegrityError an ErrDamaged.
func (e *IntegrityError) Unwrap() error { return ErrDamaged }

// CommitIntegrityError is a stored commit whose fields do not hash to its
// hash (a parent rewired, an operation or content changed behind lineage's
// back): compile refuses to build on it.
type CommitIntegrityError struct {
	Commit Hash
	Got    Hash
}

func (e *CommitIntegrityError) Error() string {
	return fmt.Sprintf("commit %s: its fields hash to %s: commit damaged, refusing to compile it (run 'lineage tract verify')", e.Commit.Short(), e.Got.Short())
}

// Unwrap makes a CommitIntegrityError an ErrDamaged.
func (e *CommitIntegrityError) Unwrap() error { return ErrDamaged }

// ValidationError is bad input: an unknown type or role, an invalid name, an
// edit that is not allowed.
type ValidationError struct {
	Field  string
	Value  string
	Reason string
}

func (e *ValidationError) Error() string {
	if v := e.Value; v != "" {
		if len(v) > 80 {
			v = v[:80] + "…"
		}
		return fmt.Sprintf("invalid %s %q: %s", e.Field, v, e.Reason)
	}
	return fmt.Sprintf("invalid %s: %s", e.Field, e.Reason)
}

// BudgetError is a budget that the pinned messages alone exceed.
type BudgetError struct {
	Budget int
	// Needed is what the messages no budget drops use, with the reply
	// primer.
	Needed int
	// Kept are those messages, in order: the pinned units, each a pinned
	// message with the tool calls or results of its unit (which a budget
	// keeps with it whatever their own priority).
	Kept []Message
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("budget of %d tokens is too small: pinned messages need %d tokens", e.Budget, e.Needed)
}

// Conflict is one commit both sides of a merge changed incompatibly.
type Conflict struct {
	Kind   string `json:"kind"` // both-edit | skip-vs-edit
	Target Hash   `json:"target"`
	Ours   string `json:"ours"`   // edit | skip
	Theirs string `json:"theirs"` // edit | skip
}

// ConflictError reports the conflicts of a merge that changed nothing.
type ConflictError struct {
	Conflicts []Conflict
}

func (e *ConflictError) Error() string {
	parts := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		parts[i] = fmt.Sprintf("%s on %s", c.Kind, c.Target.Short())
	}
	return fmt.Sprintf("merge conflict: %s (nothing changed; use --strategy ours or theirs)", strings.Join(parts, ", "))
}

func (e *ConflictError) Unwrap() error { return ErrConflict }
