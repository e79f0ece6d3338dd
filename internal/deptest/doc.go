// Package deptest turns lineage's dependency rules into a test, after
// tailscale's tstest/deptest: [Rules] is the architecture map of
// docs/architecture.md written as a table (faces → services → domain →
// stores; a driver only in its store package), [List] reads the real
// import graph with `go list`, and [Check] reports every import that breaks
// a rule. The package's own test checks the module and, rule by rule, that
// a forbidden import is caught.
package deptest
