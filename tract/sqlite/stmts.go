package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache prepares each fixed query once per handle or transaction. A
// short command runs the same few point lookups many times (show HEAD~N
// follows O(log N) commits one query each), and SQLite parses and plans a
// statement on every prepare: for such a command that is the largest part of
// its work after start-up. Only fixed query texts go through the cache, so
// it holds a bounded number of statements.
type stmtCache struct {
	mu    sync.Mutex
	prep  func(context.Context, string) (*sql.Stmt, error)
	stmts map[string]*sql.Stmt
}

func newStmtCache(q querier) *stmtCache {
	return &stmtCache{prep: q.PrepareContext, stmts: map[string]*sql.Stmt{}}
}

// get returns query's prepared statement.
func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	st, err := c.prep(ctx, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = st
	return st, nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.stmts {
		st.Close()
		delete(c.stmts, q)
	}
}

// queryRow runs a fixed query through the reader's statement cache.
func (r reader) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if r.stmts != nil {
		if st, err := r.stmts.get(ctx, query); err == nil {
			return st.QueryRowContext(ctx, args...)
		}
	}
	// Without a statement (or when preparing failed) the plain query
	// reports the same error through Scan.
	return r.q.QueryRowContext(ctx, query, args...)
}

// query runs a fixed query through the reader's statement cache.
func (r reader) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if r.stmts == nil {
		return r.q.QueryContext(ctx, query, args...)
	}
	st, err := r.stmts.get(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}
