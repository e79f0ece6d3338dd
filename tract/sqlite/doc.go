// Package sqlite is the embedded [tract.Store]: one SQLite file (through
// modernc.org/sqlite, no cgo) holding every tract of a project.
//
// The database runs in WAL mode with a busy timeout and foreign keys on.
// Write transactions begin IMMEDIATE, so writers from several processes
// queue on the database lock instead of failing half way; a commit is one
// such transaction (blob insert-or-ignore, commit insert, ref
// compare-and-swap). Parents are foreign keys to commits (first parent in
// the commit row, further ones in merge_parents), so a commit another commit
// of any tract builds on cannot be deleted. The schema is versioned in
// schema_version and migrated forward on open.
//
// Layout for fast compiles: hashes are 32 raw bytes; commits are clustered
// by (author tract, per-tract sequence number) and blobs by insertion order,
// with unique indexes on their hashes. A commit's ancestors in its own tract
// always have lower sequence numbers, so History reads a tract's history as
// one range scan joined to its blobs by row id, and follows parents into
// other tracts with one more range scan per tract reached; commits of the
// range that the heads do not reach are dropped in memory.
package sqlite
