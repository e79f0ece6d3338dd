// Package sqlite is the embedded [tract.Store]: one SQLite file (through
// modernc.org/sqlite, no cgo) holding every tract of a project.
//
// The database runs in WAL mode with a busy timeout and foreign keys on.
// Write transactions begin IMMEDIATE, so writers from several processes
// queue on the database lock instead of failing half way; a commit is one
// such transaction (blob insert-or-ignore, commit insert, ref
// compare-and-swap). Parents live in their own table with foreign keys to
// commits, so a commit another commit (of any tract) builds on cannot be
// deleted. The schema is versioned in schema_version and migrated forward on
// open.
package sqlite
