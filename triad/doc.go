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
// extensions are taken whole), arrays are stable unions. Real documents
// reuse keys inside one array (two milestones "near-1"), so in keyed arrays
// (links, entries, milestones, …) nothing merges within a layer, and a later
// layer's element merges into an earlier one only when their key is unique
// on both sides — merging, not replacing: its scalars win, the arrays inside
// it union. Because arrays only grow, no element of any layer, and so no
// inherited guardrail, is ever lost. [Result.Provenance] records, per JSON
// pointer, which file each value came from; an element merged from two
// layers is reported value by value.
package triad
