package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"

	sqlite "modernc.org/sqlite"
)

// lendFunc is the SQL function through which a query lends the values of
// a row to Go without copying them: lendFunc(token, values...) calls the
// lending registered under token with the values as SQLite holds them
// (the driver's volatile arguments), valid until the call returns. A read
// of a megabyte part then costs SQLite's one read of it, not that and a
// fresh copy in Go's heap (page faults included).
const lendFunc = "lineage_lend"

// registerLend registers lendFunc with the driver: Open calls it before
// it opens a connection (a connection has the functions registered before
// it opened).
func registerLend() error {
	lendOnce.Do(func() {
		lendErr = sqlite.RegisterFunction(lendFunc, &sqlite.FunctionImpl{
			NArgs:        -1,
			VolatileArgs: true,
			Scalar:       lendScalar,
		})
	})
	return lendErr
}

var (
	lendOnce sync.Once
	lendErr  error
)

// lendings maps a token to the lending a query in flight serves.
var lendings struct {
	sync.Mutex
	next int64
	m    map[int64]*lending
}

type lending struct {
	fn    func(vals []any) error
	err   error
	calls int
}

// errLent stops a statement whose lending failed; lend returns the
// lending's own error instead.
var errLent = errors.New("lent values refused")

func lendScalar(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("%s: no token", lendFunc)
	}
	token, _ := args[0].(int64)
	lendings.Lock()
	l := lendings.m[token]
	lendings.Unlock()
	if l == nil {
		return nil, fmt.Errorf("%s: no lending %d", lendFunc, token)
	}
	l.calls++
	vals := make([]any, len(args)-1)
	for i, a := range args[1:] {
		vals[i] = a
	}
	if l.err = l.fn(vals); l.err != nil {
		return nil, errLent
	}
	return nil, nil
}

// lend runs query, a SELECT of one column, lendFunc(?, ...), its first
// argument the token lend binds before args, and calls fn with the
// values of each row it lends. The values are SQLite's own memory until
// fn returns: fn copies what it keeps (strings included) and makes no
// other call on the store meanwhile. It returns how many rows fn saw.
func (r reader) lend(ctx context.Context, query string, args []any, fn func(vals []any) error) (int, error) {
	l := &lending{fn: fn}
	lendings.Lock()
	if lendings.m == nil {
		lendings.m = map[int64]*lending{}
	}
	lendings.next++
	token := lendings.next
	lendings.m[token] = l
	lendings.Unlock()
	defer func() {
		lendings.Lock()
		delete(lendings.m, token)
		lendings.Unlock()
	}()
	rows, err := r.q.QueryContext(ctx, query, append([]any{token}, args...)...)
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
	}
	if l.err != nil {
		return l.calls, l.err // not errLent, as the driver reports it
	}
	return l.calls, err
}
