// Package canon produces canonical JSON (RFC 8785, the JSON Canonicalization
// Scheme): object members sorted by their UTF-16 code units, no insignificant
// whitespace, numbers in their shortest ECMAScript form, minimal string
// escaping. Equal JSON values have equal canonical bytes, so canonical JSON is
// what lineage hashes (tract blobs and commits, journal entry ids) and what it
// compares (arrays of objects in a triad merge).
package canon
