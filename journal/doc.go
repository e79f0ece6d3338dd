// Package journal writes agency entries, promotes them to ancestor domains
// and renders Markdown mirrors of triads.
//
// A write goes to one place: the write root of P (by scope: the repo root of
// P, "submodule", the default; the workspace root; or P itself), in
// <write root>/<first agents root>/<slug>/. The agency document there is
// chosen by the triad naming rules or created as
// <slug>@<basename of write root>.agency.triad.json.
//
// Writes are append-only and idempotent: an entry's id is the SHA-256 of its
// canonical JSON (without the id) unless given, and an id already present is
// not written again. The new entry goes first in a newest-first log, else
// last; nothing else in the document changes except "updated" and, when
// asked, extensions["x-dirsTouched"]. The document is decoded with the
// lossless model of package triad, so unknown keys, key order and number
// texts survive.
//
// Transfer copies entries to the agency of an ancestor domain; copies keep
// their id, gain "transferredFrom", and go into a newest-first log by their
// own timestamps (existing entries never move relative to each other).
// Mirrors render each triad document as Markdown under .generated/.
//
// The authoring writes follow CLIA's commands under the same rules: Log
// (rich entries for several agents, with upsert in place), WriteDaily (the
// journal/YYYY-MM-DD.json day document, merged, never overwritten),
// Commissioned and UpdateRoster (a new agent's triads and its AGENTS.md
// row, idempotent), Normalize (CLIA's array ordering, nothing else) and
// Migrate (legacy names and pre-0.4.0 shapes to 0.4.0, with .bak files).
//
// Writers of one context directory are serialized by an exclusive lock on
// the sibling file ".agency.lock", which exists only while someone holds
// or waits for the lock (fsx.LockFile removes it); the new document is written to a
// temporary file in the same directory, synced and renamed over the old one,
// and the directory is synced, so readers and crashes see the old or the new
// document, never a torn one. Nothing outside the target directory is ever
// created or changed, and a target that resolves through a symlink outside
// the write root is refused.
package journal
