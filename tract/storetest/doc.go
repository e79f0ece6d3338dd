// Package storetest is the conformance suite every [tract.Store] passes.
// A backend's test is one line:
//
//	func TestStore(t *testing.T) { storetest.Run(t, newStore) }
//
// where newStore returns a new, empty store for each call (closing it with
// t.Cleanup). The suite checks the store contract directly (rows round trip,
// compare-and-swap, insert-or-ignore, foreign keys across tracts,
// transactions that fail leave nothing) and then every behaviour of the
// tract domain through a [tract.Repo] on that store: compile, edits,
// annotations, named instructions, budgets, refs, merges, spawn, merge-from,
// GC, verify, concurrent appends, and a property test that a warm compile
// always equals a cold one.
//
// A store that can be reopened (it implements [Reopener]) is also checked to
// resume the same tracts after reopening.
package storetest
