// Package tract is version control for an LLM's context window.
//
// A tract is one agent's context history: a DAG of commits, each holding a
// piece of content (an instruction, a message, a tool call or result,
// reasoning, an artifact, metadata) or recording an edit or a merge. Many
// tracts live in one [Store]; commits are addressed by the SHA-256 of their
// canonical JSON (RFC 8785), which covers the author tract, the ordered
// parents and the content blob's hash, so history cannot change unnoticed
// ([Repo.Verify] recomputes every hash).
//
// Compiling a tract at a head turns the DAG into the message list an LLM
// receives:
//
//   - Linearize: the head's first-parent history oldest first; before each
//     merge commit, the part of its other parents' history not emitted yet,
//     linearized the same way (nested merges expand recursively). Every
//     commit appears once; merge commits render nothing.
//   - Edits replace their target's content at the target's position; the
//     edit latest in the linearization wins. A tract edits only its own
//     commits.
//   - Priority of a commit for the compiling (viewer) tract: the viewer's
//     newest annotation, else the author tract's, else the type's default
//     (instructions PINNED, reasoning SKIP, metadata never compiled).
//   - Of instructions sharing a name only the latest is kept, at its own
//     position.
//   - A budget drops NORMAL messages oldest first, then IMPORTANT ones,
//     never PINNED; a tool call goes with its results. The result lists
//     what was dropped.
//   - Tokens: 3 per message plus its text (plus 1 with a name), plus 3 for
//     the reply primer, with a real tokenizer (internal/tokens).
//
// A compiled context renders as OpenAI chat messages ([OpenAI]), as an
// Anthropic Messages API body ([ToAnthropic]) or as text ([Text]). The
// Anthropic rendering is always a valid request: system text goes to the
// system field, turns of one role are merged so roles alternate, a context
// that starts with the assistant gets a first user turn saying
// "(context continues)" (the API wants a user turn first, and a placeholder
// keeps the assistant's words where they were rather than moving them),
// tool results become tool_result blocks at the front of a user turn, and a
// tool call or result whose other half is not beside it becomes text.
//
// A compile is cached per tract and encoding and extended incrementally when
// the head moves forward; a property test in tract/storetest checks that it
// always equals a cold compile.
//
// # Multi-agent: spawn and merge-from
//
// A parent tract spawns a child; the spawn pointer records the parent, the
// parent's head at the spawn, the purpose and the mode. In reference mode
// (the default) the child's first commit has the parent's head as its first
// parent: the child sees the parent's context by reference, nothing is
// copied. merge-from records, in the parent, a merge commit whose second
// parent is the child's head. The design questions of the cross-tract seed
// are answered as follows:
//
//   - Compiler and tract boundaries: the compiler follows parents, never
//     tract ids, so it crosses tract boundaries wherever a parent does. The
//     child's block in the parent's compile is what linearization gives for
//     the second parent: the child's commits not already emitted. The
//     parent's context the child saw by reference was emitted earlier in the
//     parent's own history, so it is not repeated.
//   - Annotations are per viewer: when the parent compiles, the parent's
//     annotations decide for every commit, the child's included (the author's
//     annotations apply only where the viewer has none). A child annotating
//     a parent commit SKIP hides it in the child's compile, never in the
//     parent's.
//   - Edits stay within a tract: editing another tract's commit is an error;
//     annotate it instead.
//   - Budget: child commits in the parent's compile are ordinary messages of
//     that compile and count against the parent's budget, trimmed by the
//     parent's priorities.
//   - Child lifecycle and GC: garbage collection is reachability over all
//     tracts (roots: every ref of every live tract and recent reflog entries;
//     edges: every parent in any tract and every edit target). A child's
//     commits that a parent merged are reachable from the parent and survive
//     the child's reset or removal. Removing a tract removes its refs only.
//   - Selection policy: merge-from takes everything the child did after the
//     spawn point that the parent has not merged yet; a selection narrows one
//     merge and never gives up what it leaves out (a later merge offers it
//     again). The seed commit of a snapshot or empty spawn renders only in
//     its own tract and in what sees it by reference through a spawn point:
//     a reference child's context is its parent's as the parent compiles it
//     (inherit.go).
//
// # Storage
//
// [Store] is a small transactional record store; this package holds every
// rule and never imports a backend. tract/sqlite is the embedded backend,
// and tract/storetest the conformance suite every backend passes.
package tract
