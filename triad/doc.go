// Package triad reads, merges and writes CLIA triad documents.
//
// A triad is the three JSON documents that describe one agent in one domain:
// the agent (identity, purpose, guardrails), the agenda (horizons,
// milestones, backlog) and the agency (a log of entries). They live directly
// in a context directory as "<anything>.<kind>.triad.json" (legacy
// "<anything>.<kind>.json" is used for a kind only when no current-form file
// of that kind exists; of several candidates the byte-wise first wins).
//
// Documents are held as [Value] trees that lose nothing: members keep their
// order, numbers keep their literal text, unknown keys and shapes survive a
// decode/encode round trip. A file is only ever rewritten from this model, so
// a write never drops what a newer or older CLIA version put there.
//
// A merge folds layers, lowest precedence first, into one document: scalars
// take the last non-empty value, objects merge key by key (notes and
// extensions are taken whole), arrays are stable unions in which keyed
// arrays (links, entries, milestones, …) replace a matching element in
// place. Because arrays only grow, a guardrail inherited from a lower layer
// is always in the merged view. [Result.Provenance] records, per JSON
// pointer, which file each value came from.
package triad
