package tract

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/agentlineage/lineage/internal/tokens"
)

// Repo is the tract domain over a [Store]: every operation of the CLI as a
// method. A Repo is safe for concurrent use; several Repos (in several
// processes) may share one store.
type Repo struct {
	store   Store
	now     func() time.Time
	counter func(encoding string) (tokens.Counter, error)
	retries int
	cache   *compileCache
	// eager counts tokens of new blobs; nil means only when already loaded.
	eager func() (tokens.Counter, bool)
	// noCheckpoints compiles without stored compile checkpoints;
	// checkpointEvery is how far a view grows before it is stored again.
	noCheckpoints   bool
	checkpointEvery int
	windowPiece     int
	checkpointPiece int
}

// Options configure a [Repo]. Zero values pick the defaults.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Tokenizer returns the tokenizer for an encoding ("" is the
	// default); nil means lineage's own (NewTokenizer). See Tokenizer.
	Tokenizer func(encoding string) (Tokenizer, error)
	// Retries bounds how often an append is retried on a moved branch
	// (default 100).
	Retries int
	// CountTokens counts the default encoding's tokens of new blobs when
	// they are written. Without it they are counted on first compile, or at
	// write time when the process has the tokenizer loaded anyway (loading
	// it costs tens of milliseconds, too much for a one-commit process).
	CountTokens bool
	// NoCheckpoints compiles from the history alone: no stored compile
	// checkpoint is read or written (what tests compare checkpoints with).
	NoCheckpoints bool
	// CheckpointEvery is how many commits a compiled view grows past its
	// stored checkpoint before a compile stores it again (default 64).
	CheckpointEvery int
	// WindowPiece is how many commits a compile window of a tract without
	// a checkpoint reads at once (window_chain.go; default 512).
	WindowPiece int
	// CheckpointPiece is the most messages a piece of a stored
	// checkpoint's messages holds (checkpoint_pieces.go; default 256).
	CheckpointPiece int
}

// New returns a Repo over s.
func New(s Store, o Options) *Repo {
	r := &Repo{store: s, now: o.Now, counter: o.Tokenizer, retries: o.Retries, cache: newCompileCache(), noCheckpoints: o.NoCheckpoints, checkpointEvery: o.CheckpointEvery, windowPiece: o.WindowPiece,
		checkpointPiece: o.CheckpointPiece}
	if r.checkpointEvery <= 0 {
		r.checkpointEvery = checkpointEvery
	}
	if r.windowPiece <= 0 {
		r.windowPiece = chainPiece
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.counter == nil {
		r.counter = tokens.Get
	}
	if r.retries <= 0 {
		r.retries = 100
	}
	switch {
	case o.CountTokens:
		r.eager = func() (tokens.Counter, bool) {
			c, err := r.counter("")
			return c, err == nil
		}
	case o.Tokenizer == nil:
		r.eager = func() (tokens.Counter, bool) { return tokens.Loaded("") }
	default:
		r.eager = func() (tokens.Counter, bool) { return nil, false }
	}
	return r
}

// Counter returns the token counter the repo compiles with for encoding
// ("" is the default): what a caller counting text beside a compile uses,
// so both counts agree.
func (r *Repo) Counter(encoding string) (tokens.Counter, error) { return r.counter(encoding) }

// Store returns the repo's store.
func (r *Repo) Store() Store { return r.store }

func (r *Repo) clock() time.Time { return r.now().UTC() }

// DefaultTract is the tract used when none is named.
const DefaultTract = "main"

// DefaultBranch is the branch a new tract's HEAD points at.
const DefaultBranch = "main"

// Init creates tract main unless it exists; created reports which.
func (r *Repo) Init(ctx context.Context) (t Tract, created bool, err error) {
	t, err = r.store.Tract(ctx, DefaultTract)
	if err == nil {
		return t, false, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return t, false, err
	}
	t, err = r.NewTract(ctx, DefaultTract)
	if errors.Is(err, ErrExists) {
		t, err = r.store.Tract(ctx, DefaultTract)
		return t, false, err
	}
	return t, err == nil, err
}

// NewTract creates an empty tract whose HEAD is the unborn branch main.
func (r *Repo) NewTract(ctx context.Context, name string) (Tract, error) {
	return r.createTract(ctx, name, nil, nil)
}

// createTract creates a tract and runs then (if any) in the same transaction.
func (r *Repo) createTract(ctx context.Context, name string, spawn *SpawnPointer, then func(tx Tx, t Tract) error) (Tract, error) {
	if err := ValidateTractName(name); err != nil {
		return Tract{}, err
	}
	now := r.clock()
	var t Tract
	err := r.store.Update(ctx, func(tx Tx) error {
		if _, err := tx.Tract(ctx, name); err == nil {
			return fmt.Errorf("tract %q: %w", name, ErrExists)
		}
		for attempt := 0; ; attempt++ {
			t = Tract{ID: tractID(name, now, attempt), Name: name, Created: now, Spawn: spawn}
			if _, err := tx.TractByID(ctx, t.ID); errors.Is(err, ErrNotFound) {
				break
			}
		}
		if err := tx.CreateTract(ctx, t); err != nil {
			return err
		}
		if err := tx.UpdateRef(ctx, RefUpdate{Tract: t.ID, Name: HeadRef, New: branchPrefix + DefaultBranch, Operation: "init", Time: now}); err != nil {
			return err
		}
		if then != nil {
			return then(tx, t)
		}
		return nil
	})
	return t, err
}

// Tract finds a live tract by name.
func (r *Repo) Tract(ctx context.Context, name string) (Tract, error) {
	t, err := r.store.Tract(ctx, name)
	if errors.Is(err, ErrNotFound) {
		return t, fmt.Errorf("tract %q: %w", name, ErrNotFound)
	}
	return t, err
}

// Tracts lists live tracts.
func (r *Repo) Tracts(ctx context.Context) ([]Tract, error) { return r.store.Tracts(ctx) }

// Head is where a tract's HEAD points.
type Head struct {
	// Branch is the attached branch, "" when detached.
	Branch string `json:"branch,omitempty"`
	// Commit is the head commit, "" on an unborn branch.
	Commit Hash `json:"commit,omitempty"`
}

// readHead reads HEAD and the commit it designates, with the raw ref values
// a compare-and-swap needs.
func readHead(ctx context.Context, rd Finder, tractID string) (Head, error) {
	ref, err := rd.Ref(ctx, tractID, HeadRef)
	if errors.Is(err, ErrNotFound) {
		ref.Value = branchPrefix + DefaultBranch
	} else if err != nil {
		return Head{}, err
	}
	if len(ref.Value) > len(branchPrefix) && ref.Value[:len(branchPrefix)] == branchPrefix {
		h := Head{Branch: ref.Value[len(branchPrefix):]}
		b, err := rd.Ref(ctx, tractID, h.Branch)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return h, err
		}
		h.Commit = Hash(b.Value)
		return h, nil
	}
	return Head{Commit: Hash(ref.Value)}, nil
}

// Head reads a tract's HEAD.
func (r *Repo) Head(ctx context.Context, tractName string) (Tract, Head, error) {
	t, err := r.Tract(ctx, tractName)
	if err != nil {
		return t, Head{}, err
	}
	h, err := readHead(ctx, r.store, t.ID)
	return t, h, err
}

// moveHead compare-and-swaps whatever HEAD designates (its branch, or HEAD
// itself when detached) from h.Commit to to.
func moveHead(ctx context.Context, tx Tx, tractID string, h Head, to Hash, op string, at time.Time) error {
	name := HeadRef
	if h.Branch != "" {
		name = h.Branch
	}
	return tx.UpdateRef(ctx, RefUpdate{Tract: tractID, Name: name, Old: string(h.Commit), New: string(to), Operation: op, Time: at})
}

// retry runs fn until it does not fail with ErrBranchMoved, a bounded number
// of times with a short random pause between attempts.
func (r *Repo) retry(ctx context.Context, fn func() error) error {
	var err error
	for i := 0; i < r.retries; i++ {
		if err = fn(); !errors.Is(err, ErrBranchMoved) {
			return err
		}
		pause := time.Duration(rand.IntN(1+i*2)) * time.Millisecond
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
	return fmt.Errorf("gave up after %d attempts: %w", r.retries, err)
}
