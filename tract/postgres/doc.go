// Package postgres is the [tract.Store] on PostgreSQL (through
// github.com/jackc/pgx/v5 and a connection pool), for when one machine's
// SQLite file is not enough: many agents on many hosts sharing one store.
//
// The layout serves many tenants in one database. Every row but a blob is
// keyed by its tract id: commits by (author tract, sequence number) with a
// unique hash, refs by (tract, name), reflog and annotation rows by tract
// or viewer. Blobs are content addressed and shared: a blob is inserted with
// ON CONFLICT DO NOTHING, so the same content is stored once whichever
// tracts use it. Hashes are 32-byte bytea keys; times are integer
// nanoseconds (timestamptz keeps only microseconds); text columns use the
// "C" collation so listings sort byte-wise, as on SQLite.
//
// Transactions run at READ COMMITTED. A ref moves by compare-and-swap: a
// conditional UPDATE … WHERE value = old (or DELETE, or an INSERT … ON
// CONFLICT DO NOTHING when the ref must not exist yet) whose row count says
// whether it happened, in the same statement as its reflog row. Refs read
// inside a transaction are locked (SELECT … FOR UPDATE), so writers of one
// tract queue behind each other instead of racing and retrying, as they do
// on SQLite's database lock. A garbage collection locks the commits table
// against concurrent inserts for its transaction. [Store.Update] runs its
// function again when PostgreSQL (or a compatible distributed database that
// runs every transaction serializably) reports a serialization failure or
// a deadlock (SQLSTATE 40001, 40P01).
//
// Bulk writes (an import of many messages) are copied into a temporary
// table with the COPY protocol and moved into place with one INSERT … ON
// CONFLICT DO NOTHING; small writes pass arrays to one INSERT … SELECT
// FROM unnest(…).
//
// The schema is versioned in schema_version and migrated forward on open
// under an advisory lock, so processes that open a new database at once
// migrate it once. Tables live in the first schema of the connection's
// search_path (a URL parameter search_path=… picks one).
//
// History (a cold compile's read) reads a tract's commits as one range
// scan of (tract, seq) joined to their blobs, and follows parents into other
// tracts with one more range per tract reached, as the SQLite store does.
package postgres
