package tract

import (
	"context"
	"time"
)

// Store is where tracts live: one database holding many tracts. It is a
// plain record store; every rule (hashing, validation, compile, merge, GC
// policy) lives in this package, so a backend only stores and finds rows.
//
// Reads outside Update see committed data. Update runs fn in one
// transaction: everything fn wrote is committed together when it returns nil
// and nothing is when it returns an error. A backend may run fn again after
// a serialization failure, so fn must not have side effects outside tx.
//
// Every backend runs the conformance suite in tract/storetest.
type Store interface {
	Reader
	Updater
	Close() error
}

// The roles of a store, named so a function can ask for only what it uses:
//
//   - [Finder] looks rows up by key (a tract, a ref, a commit, blobs);
//   - [Walker] reads a history in one round trip (Ancestry, History);
//   - [Scanner] visits every stored commit or blob (gc, verify);
//   - [Writer] changes rows, inside [Updater.Update] only.
//
// [Reader] is the three read roles, [Tx] a Reader and a Writer.

// Reader is every read a store answers. Lookups of one missing row return
// an error wrapping [ErrNotFound]; lookups of many return what exists.
type Reader interface {
	Finder
	Walker
	Scanner
}

// Upgrader is a store opened read-only that can write on the same
// database when a read must keep what it computed (the token counts and
// compile checkpoint of a compile; see [Repo.Compile]): Upgrade returns a
// store whose Update writes, on the read handle's connection where the
// database allows it, else a writable handle on the same file or database,
// opened without reading the store's location again. It never creates or
// migrates a schema (the read-only open already refused an older one);
// its error (a read-only file system) only means computing again next
// time. The caller closes what it returns. Both of lineage's stores are
// Upgraders.
type Upgrader interface {
	Upgrade(ctx context.Context) (Store, error)
}

// Updater runs writes in transactions.
type Updater interface {
	// Update runs fn in one transaction (see [Store]).
	Update(ctx context.Context, fn func(tx Tx) error) error
}

// Finder looks rows up by key.
type Finder interface {
	// Tract finds a live tract by name; TractByID finds one by id, deleted or not.
	Tract(ctx context.Context, name string) (Tract, error)
	TractByID(ctx context.Context, id string) (Tract, error)
	// Tracts lists live tracts ordered by creation time, then name.
	Tracts(ctx context.Context) ([]Tract, error)
	// TractsByID finds, in one read, the tracts (deleted or not) whose id
	// is in ids, in no particular order; an id that names none is left out.
	TractsByID(ctx context.Context, ids []string) ([]Tract, error)

	// Ref finds one ref of a tract. Refs lists a tract's refs sorted by name,
	// or every live tract's refs when tractID is "".
	Ref(ctx context.Context, tractID, name string) (Ref, error)
	Refs(ctx context.Context, tractID string) ([]Ref, error)
	// Reflog lists entries oldest first. Empty query fields match everything.
	Reflog(ctx context.Context, q ReflogQuery) ([]ReflogEntry, error)

	// Commit finds one commit.
	Commit(ctx context.Context, h Hash) (Commit, error)
	// CommitsWithPrefix returns up to limit hashes starting with prefix, sorted.
	CommitsWithPrefix(ctx context.Context, prefix string, limit int) ([]Hash, error)

	// Blobs returns the blobs of hashes that exist, with their token count in
	// encoding (-1 when not counted; encoding "" asks for none).
	Blobs(ctx context.Context, hashes []Hash, encoding string) ([]Blob, error)

	// Annotations lists annotations by the given viewers (all when nil), on
	// Commit (any when ""), with Seq greater than AfterSeq, ordered by Seq.
	Annotations(ctx context.Context, q AnnotationQuery) ([]Annotation, error)

	// Settings lists a tract's stored settings sorted by key.
	Settings(ctx context.Context, tractID string) ([]Setting, error)
	// TractSettings lists, in one read, the settings of many tracts: those
	// of the tracts in q.Tracts whose key starts with q.Prefix, sorted by
	// tract id, then key.
	TractSettings(ctx context.Context, q SettingsQuery) ([]Setting, error)

	// Search returns the commits with content that match q, each with its
	// blob (Tokens -1), in no particular order. Words are matched through
	// the store's full-text index of IndexWords.
	Search(ctx context.Context, q SearchQuery) ([]HistoryCommit, error)

	// CompiledView finds the stored compile checkpoint of a viewer tract in
	// an encoding: its header and the part asked for (the other part's
	// field stays nil).
	CompiledView(ctx context.Context, viewer, encoding string, part ViewPart) (CompiledView, error)
	// CompiledViewPieces calls fn with the pieces numbered from to to-1
	// (fewer when there are fewer) of the messages part of the viewer's
	// checkpoint in encoding, in order, when that checkpoint's Sum is
	// sum; ErrNotFound, fn not called, when no checkpoint of that sum is
	// stored (none, or replaced since sum was read). data is fn's only
	// during the call.
	CompiledViewPieces(ctx context.Context, viewer, encoding string, sum Hash, from, to int, fn func(piece int, data []byte) error) error
}

// ViewLender is a Store that can lend a checkpoint's messages part
// instead of copying it: the megabytes of a long context are then read
// once, into the store's own memory, and written out from there.
type ViewLender interface {
	// LendCompiledView calls fn with what CompiledView(ViewMessages)
	// returns. The messages part is the store's memory, valid only until
	// fn returns: fn copies what it keeps of it and makes no other call on
	// the store meanwhile. fn's error is returned as it is; a viewer
	// without a checkpoint in the encoding is ErrNotFound, fn not called.
	LendCompiledView(ctx context.Context, viewer, encoding string, fn func(CompiledView) error) error
}

// ChainReader is a Store that reads a stretch of a first-parent chain,
// with the commits' contents, in one query (a compile window of a
// never-compiled tract reads its history in pieces, tract/window_chain.go);
// without it the stretch is read a commit at a time.
type ChainReader interface {
	// FirstParents returns commits of top's first-parent chain, top
	// first, each the first parent of the one before, with its content
	// blob and the blob's token count in encoding (as History): at most n,
	// and possibly fewer (none when top is not stored) though the chain
	// goes on; the caller asks again from where it stopped.
	FirstParents(ctx context.Context, top Hash, n int, encoding string) ([]HistoryCommit, error)
}

// PointerWalker is a Store that follows a commit's DAG pointers many
// steps in one read, reading only the pointers (a commit's first parent,
// its Position) instead of whole commit rows: the Nth first parent
// (HEAD~N) is O(log N) steps along the skip pointers, each a Commit read
// without it.
type PointerWalker interface {
	// WalkPointers starts at commit from and takes one step for each byte
	// of steps: 'j' to the commit's Position.Jump, 'p' to its first parent.
	// It returns the commit reached, its Position and the number of steps
	// taken: fewer than len(steps) when a commit on the way lacks the
	// pointer asked for (a root; a commit whose Position is not known) or
	// it is not stored. An empty steps reads from's Position alone. A from
	// that is not stored is an error wrapping ErrNotFound.
	WalkPointers(ctx context.Context, from Hash, steps string) (at Hash, pos Position, taken int, err error)
}

// Walker reads the commits reachable from some heads.
type Walker interface {
	// Ancestry returns every commit reachable from heads through parents,
	// heads included, in one round trip, in no particular order.
	Ancestry(ctx context.Context, heads []Hash) ([]Commit, error)
	// History returns what compiling heads needs in as few round trips as
	// the backend can manage: every commit reachable from heads (as
	// Ancestry) with its content blob and the blob's token count in encoding
	// (Blob.Hash is "" for merges). Order is unspecified.
	History(ctx context.Context, heads []Hash, encoding string) ([]HistoryCommit, error)
}

// Scanner visits every stored row of a kind.
type Scanner interface {
	// ScanCommits calls fn for every stored commit, in no particular order.
	// Every commit read (Commit, Ancestry, History, ScanCommits, Search)
	// carries its Meta byte for byte: it is hashed.
	ScanCommits(ctx context.Context, fn func(Commit) error) error
	// ScanBlobs calls fn for every stored blob.
	ScanBlobs(ctx context.Context, fn func(Blob) error) error
	// ScanCompiledViews calls fn for every stored compile checkpoint, its
	// messages and data included.
	ScanCompiledViews(ctx context.Context, fn func(CompiledView) error) error
}

// Tx is a transaction: reads see its own writes.
type Tx interface {
	Reader
	Writer
}

// Writer changes rows. A call that fails may have written part of its rows:
// its transaction must fail too (Store.Update rolls back when fn returns an
// error), never commit.
type Writer interface {
	// CreateTract fails with ErrExists when a live tract has the name or the
	// id is taken.
	CreateTract(ctx context.Context, t Tract) error
	// DeleteTract marks a tract deleted (freeing its name) and removes its
	// refs; its commits stay.
	DeleteTract(ctx context.Context, id string, at time.Time) error
	// PutBlobs stores each blob unless one with its hash exists (a blob
	// with Tokens >= 0 and an Encoding also records its token count).
	PutBlobs(ctx context.Context, blobs ...Blob) error
	// PutCommits stores each commit unless one with its hash exists, in
	// order. Parents, edit targets and contents must exist or come earlier
	// in the list; otherwise the call fails.
	PutCommits(ctx context.Context, commits ...Commit) error
	// UpdateRef compares and swaps a ref and appends to the reflog; a ref
	// whose value is not u.Old fails with ErrBranchMoved.
	UpdateRef(ctx context.Context, u RefUpdate) error
	// AddAnnotation appends an annotation; the store assigns Seq.
	AddAnnotation(ctx context.Context, a Annotation) error
	// SetTokens records token counts of blobs in one encoding.
	SetTokens(ctx context.Context, encoding string, counts map[Hash]int) error
	// DeleteCommits removes commits with their parent rows and annotations.
	DeleteCommits(ctx context.Context, hashes []Hash) error
	// DeleteUnusedBlobs removes blobs no commit uses and returns how many.
	DeleteUnusedBlobs(ctx context.Context) (int, error)
	// PruneReflog removes reflog entries older than before.
	PruneReflog(ctx context.Context, before time.Time) (int, error)
	// PutSetting stores a tract's setting, replacing its value; an empty
	// Value removes it.
	PutSetting(ctx context.Context, s Setting) error
	// PutCompiledView stores a compile checkpoint, replacing the viewer's
	// one in its encoding. Its head must exist; deleting the head commit
	// (DeleteCommits) or the viewer tract (DeleteTract) deletes it; a head
	// that does not exist (collected meanwhile) stores nothing.
	PutCompiledView(ctx context.Context, v CompiledView) error
	// DeleteCompiledView removes a viewer's checkpoint in an encoding.
	DeleteCompiledView(ctx context.Context, viewer, encoding string) error
}

// CompiledView is a compile checkpoint as stored: the compiled view of a
// viewer tract at a head, in one encoding, so a fresh process reads one row
// instead of the whole history. The domain makes and checks it (Sum covers
// every other field, MessagesSum the messages, DataSum the data); a store
// only keeps it. It is a cache: never exported, removed with its head or
// viewer, rebuilt when missing, stale or damaged.
//
// It has two parts a reader asks for separately: Messages, the compiled
// messages (what a compile prints), and Data, the view they were compiled
// from (what a compile needs to apply changes other than appends). The
// messages are stored in pieces (Pieces), which a reader may ask for one
// by one (CompiledViewPieces): Index, read with the header, lists them
// (the domain's layout; MessagesSum is its sum and it holds each piece's).
type CompiledView struct {
	Viewer   string
	Encoding string
	Head     Hash
	// AnnSeq is the newest annotation the view has applied.
	AnnSeq int64
	// Tokens is the compiled token count (messages only).
	Tokens int
	// Format is the version of the layout of Messages and Data.
	Format      int
	Sum         Hash
	MessagesSum Hash
	DataSum     Hash
	// Index lists the pieces of the messages part; every read of the
	// header returns it.
	Index []byte
	// Messages is the messages part whole: its pieces one after the
	// other (what a read of ViewMessages returns).
	Messages []byte
	// Pieces is the messages part in pieces, numbered from 0, as
	// PutCompiledView stores it (reads leave it nil).
	Pieces [][]byte
	Data   []byte
}

// ViewPart is the part of a [CompiledView] a read asks for beside its
// header.
type ViewPart int

const (
	// ViewHeader reads the header alone.
	ViewHeader ViewPart = iota
	// ViewMessages reads the header and the messages.
	ViewMessages
	// ViewData reads the header and the data.
	ViewData
)

// Setting is one stored per-tract configuration value (see Repo.Config).
type Setting struct {
	Tract string `json:"tract"`
	Key   string `json:"key"`
	Value string `json:"value"`
}

// SettingsQuery selects the settings of many tracts (see
// [Finder.TractSettings]).
type SettingsQuery struct {
	// Tracts are the ids of the tracts asked for.
	Tracts []string
	// Prefix keeps the keys that start with it ("" keeps all).
	Prefix string
}

// HistoryCommit is a commit with its content.
type HistoryCommit struct {
	Commit Commit
	Blob   Blob
}

// ReflogQuery selects reflog entries.
type ReflogQuery struct {
	Tract string
	Ref   string
	Since time.Time
}

// AnnotationQuery selects annotations.
type AnnotationQuery struct {
	Viewers []string
	Commit  Hash
	// Commits, when not nil, selects the annotations of these commits
	// (none when empty): a window's in one query.
	Commits  []Hash
	AfterSeq int64
}
