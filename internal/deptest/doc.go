// Package deptest turns lineage's dependency rules into a test, after
// tailscale's tstest/deptest: [Rules] is the architecture map of
// docs/architecture.md written as a table (faces → services → domain →
// stores; a driver only in its store package), [List] reads the real
// import graph with `go list`, and [Check] reports every import that breaks
// a rule. The package's own test checks the module and, rule by rule, that
// a forbidden import is caught.
//
// [Sizes] holds the module to STYLE's size limits the same way: it parses
// every non-test, non-generated Go file and lists the files over
// [MaxFileLines] and the functions over [MaxFuncLines]; the test fails on
// one that size_allow.txt does not allow with a reason, and on an entry
// there that nothing needs any more.
package deptest
