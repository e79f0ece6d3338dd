// Package handoff starts a new session from an old one: in the same
// harness or another, or as a request for a model API.
//
// The model:
//
//   - A handoff is composed from an imported session (package sessions) at
//     one of its commits (a turn): the summary — the caller's, else the
//     harness's own compaction summary when the session has one — then the
//     turns after it under the budget, the commits the session pinned or
//     tagged, and, for a model API, the AGENTS.md chain of the project with
//     its provenance (package compose does the composing, as `lineage
//     context` does).
//   - The composition is a tract of its own, spawned by reference from the
//     session at that commit, so the new session's lineage shows in `tract
//     list --tree`: its annotations skip the context the old harness
//     injected (the new one injects its own), pin the summary and the
//     tagged commits, and a caller's summary is a compress by reference over
//     what it stands for (the originals stay).
//   - The same inputs give the same handoff tract (its name is a hash of
//     them) and the same bytes; a budget is never exceeded: a pinned part
//     over it is a *compose.BudgetError naming its largest parts.
//   - A handoff to a harness is left as a pending file (see [Pending]) that
//     lineage's session-start hook delivers exactly once, at that harness's
//     next session start in that project, before it expires.
package handoff
