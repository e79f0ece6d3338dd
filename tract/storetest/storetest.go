package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
)

// Factory returns a new, empty store; it registers its own cleanup, which
// closes the store when the test ends. A property that makes a store per
// case closes it with the case too: closing a store twice must do nothing.
type Factory func(t *testing.T) tract.Store

// Reopener is a store that can open a second handle on its own data.
type Reopener interface {
	Reopen() (tract.Store, error)
}

type testCase struct {
	name string
	fn   func(t *testing.T, newStore Factory)
}

var suites [][]testCase

// Run runs the whole suite against stores made by newStore.
func Run(t *testing.T, newStore Factory) {
	for _, suite := range suites {
		for _, tc := range suite {
			t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore) })
		}
	}
}

// clock is a fake clock that moves one second per reading.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// env is one store with a repo on it and tract main created.
type env struct {
	t     *testing.T
	ctx   context.Context
	store tract.Store
	repo  *tract.Repo
	clock *clock
}

func setup(t *testing.T, newStore Factory) *env {
	t.Helper()
	e := &env{t: t, ctx: context.Background(), store: newStore(t), clock: newClock()}
	e.repo = tract.New(e.store, tract.Options{Now: e.clock.Now})
	if _, _, err := e.repo.Init(e.ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

// newRepo is a second repo (a second "process" cache) on the same store.
func (e *env) newRepo() *tract.Repo { return tract.New(e.store, tract.Options{Now: e.clock.Now}) }

func (e *env) must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}

// add appends a message; role "" picks the type default.
func (e *env) add(tractName string, typ tract.Type, role, text string) tract.Hash {
	e.t.Helper()
	c, err := e.repo.Commit(e.ctx, tractName, tract.CommitRequest{Content: tract.Content{Type: typ, Role: role, Text: text}})
	e.must(err)
	return c.Hash
}

// importNumbered imports n user messages "message 0" … "message n-1"
// into main in one transaction.
func (e *env) importNumbered(n int) {
	e.t.Helper()
	reqs := make([]tract.CommitRequest, n)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprintf("message %d", i)}}
	}
	_, err := e.repo.Import(e.ctx, "main", reqs)
	e.must(err)
}

func (e *env) user(tractName, text string) tract.Hash {
	e.t.Helper()
	return e.add(tractName, tract.TypeMessage, "user", text)
}

func (e *env) compile(tractName string, o tract.CompileOptions) tract.Result {
	e.t.Helper()
	res, err := e.repo.Compile(e.ctx, tractName, o)
	e.must(err)
	cold, err := e.repo.CompileCold(e.ctx, tractName, o)
	e.must(err)
	if a, b := texts(res), texts(cold); a != b {
		e.t.Fatalf("warm compile differs from cold:\nwarm:\n%s\ncold:\n%s", a, b)
	}
	return res
}

// texts renders messages one per line as "role: content".
func texts(res tract.Result) string {
	var b strings.Builder
	for _, m := range res.Messages {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
	}
	return b.String()
}

func (e *env) texts(tractName string) string {
	e.t.Helper()
	return texts(e.compile(tractName, tract.CompileOptions{}))
}

func (e *env) commitCount() int {
	e.t.Helper()
	n := 0
	e.must(e.store.ScanCommits(e.ctx, func(tract.Commit) error { n++; return nil }))
	return n
}

func (e *env) head(tractName string) tract.Hash {
	e.t.Helper()
	_, h, err := e.repo.Head(e.ctx, tractName)
	e.must(err)
	return h.Commit
}

func wantErr(t *testing.T, err error, target error, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", substr)
	}
	if target != nil && !errors.Is(err, target) {
		t.Fatalf("error %q is not %v", err, target)
	}
	if !strings.Contains(err.Error(), substr) {
		t.Fatalf("error %q does not contain %q", err, substr)
	}
}

func wantValidation(t *testing.T, err error, substr string) {
	t.Helper()
	var ve *tract.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v is not a *tract.ValidationError", err)
	}
	wantErr(t, err, nil, substr)
}

func equal(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// onBranch creates branch name at main's head, runs fn with HEAD on it and
// switches back to main.
func (e *env) onBranch(name string, fn func()) {
	_, err := e.repo.CreateBranch(e.ctx, "main", name, "")
	e.must(err)
	e.must(e.repo.Switch(e.ctx, "main", name))
	fn()
	e.must(e.repo.Switch(e.ctx, "main", "main"))
}
