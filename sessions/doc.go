// Package sessions brings the sessions of coding harnesses (Claude Code,
// Codex CLI, Gemini CLI) into tract: one session, one tract.
//
// A harness writes each session as a transcript file of JSON lines. A
// [Reader] understands one harness's format and turns a file into a
// [Session] header and a list of harness-neutral [Record]s; the mapper
// ([Import]) turns those records into tract commits. Readers know formats
// and nothing of tract; the mapper knows tract and nothing of formats.
//
// A record is one thing the harness kept: a message, a tool call, a tool
// result (paired with its call by the call's id), reasoning, context the
// harness injected (marked with its source and with whether it is
// lineage's own text, so a compile never sends lineage's context twice), a
// compaction summary (with the keys it replaced and the keys it kept), an
// image (kept by reference: content type, size, SHA-256), a metadata-only
// entry, or a line the reader kept verbatim because it has no meaning in
// tract ([KindUnmapped]). A line of a type the reader has never classified is
// an error ([UnclassifiedError]): new harness versions fail loudly instead of
// losing records silently.
//
// Every record carries its stable source keys (Claude's uuid, Codex's
// ordinal, Gemini's message id) and the key of the record it follows
// (its parent). Parents make the session a tree: a harness's rewind is a
// second child of an earlier record, which the mapper keeps as a tract
// branch; the harness's current line is the tract's main branch. The keys
// go into each commit's meta, so importing the same file again adds
// nothing, and a [Cursor] (byte offset of the next unread line, the last
// key read, Codex's ordinal) lets a grown file be read from where the last
// read stopped: the work of an import is proportional to what is new.
//
// Sessions link to each other: a subagent is a child tract spawned at the
// parent's tool call (the parent's tool result already holds the child's
// answer, so the child's text is never compiled twice), and a fork, resume
// or rewind names the session and record it started from ([Link]).
//
// Secrets (API keys, tokens, private keys) are masked before anything is
// stored unless the caller keeps them; the import's [Report] counts what
// was masked, what was kept verbatim and what was added.
package sessions
