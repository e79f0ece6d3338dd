// Package sqlite is the embedded [tract.Store]: one SQLite file (through
// modernc.org/sqlite, no cgo) holding every tract of a project.
//
// The database runs in WAL mode with a busy timeout and foreign keys on.
// Write transactions begin IMMEDIATE, so writers from several processes
// queue on the database lock instead of failing half way; a commit is one
// such transaction (blob insert-or-ignore, commit insert, ref
// compare-and-swap). A commit's further parents are foreign keys to commits
// (merge_parents); its first parent is checked at the end of the
// transaction that stores it or deletes commits (txn.checkParent), so a
// commit another commit of any tract builds on cannot be deleted. The
// schema is versioned in schema_version and migrated forward on open.
//
// Layout for fast compiles: hashes are 32 raw bytes; commits are clustered
// by (author tract, per-tract sequence number) and blobs by insertion order,
// with unique indexes on their hashes. A commit's ancestors in its own tract
// always have lower sequence numbers, so History reads a tract's history as
// one range scan joined to its blobs by row id, and follows parents into
// other tracts with one more range scan per tract reached; commits of the
// range that the heads do not reach are dropped in memory. The walk runs on
// the raw 32-byte hashes the driver returns; hex hashes are made only for
// the commits reached, in one string they all share (a parent's hash is its
// commit's string), which keeps a cold compile at a few allocations per
// commit. Outside a transaction a long range is read as two halves on two
// connections at once: SQLite's virtual machine, not the disk, is what a
// cold compile waits for.
package sqlite
