// Package memory keeps what an agent learned across sessions and
// harnesses: short texts ("the tests need LINEAGE_NOW set", "the user
// prefers tabs") saved in one session and delivered at the start of the
// next, whichever harness runs it.
//
// A memory lives in one scope: the user's (every project), a project's (a
// project folder, as lineage estimates the project root) or a CLIA agent's
// (its slug). Each scope is a tract of the user's sessions store
// ([TractName]): adding a memory is a commit (a custom type "x-memory"
// carrying its provenance as metadata: scope, session, harness, folder),
// editing one is a tract edit of that commit, forgetting one is a skip
// annotation (reversible: annotate it normal again). So tract log, blame
// and show give a memory's history, and tract's own concurrency (a branch
// compare-and-swap, retried) keeps two processes adding at once from
// losing either.
//
// Every scope is one user's (a project's memories are the user's memories
// of that project): a reader sees only the scopes of its [Where], its user
// and the project of its folder and the agent it names, so nothing of
// another project or user, even in a store several users share.
//
// Harnesses keep memories of their own (Claude Code's auto memory
// MEMORY.md, Gemini CLI's "Gemini Added Memories" section of GEMINI.md):
// [Native] reads them so [List] shows them with their source, and
// [Deliver] never sends them to the harness that loads them itself.
//
// [Deliver] is the session-start text: the newest and most relevant
// memories under a byte cap, each with its provenance, none sent twice in
// one harness session (a small state file per session records what was
// sent).
package memory
