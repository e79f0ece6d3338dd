// Package tokens counts the tokens of a text the way an OpenAI model's
// tokenizer does, offline, behind a small interface so callers (the tract
// compiler) can be tested with any counter.
//
// Two encodings are supported: o200k_base (the default, GPT-4o and later) and
// cl100k_base (GPT-4, GPT-3.5). Loading an encoding's vocabulary takes tens of
// milliseconds and tens of megabytes, so each encoding is loaded at most once
// per process and only when a text is first counted: [Get] only names the
// counter, and [Loaded] tells whether counting is already cheap.
//
// Counts of texts counted again and again live in one cache, [Shared] (a
// [Cache]), and between processes in its persistent layer, a [CountFile]
// ([Cache.CountKept] reads and feeds both). The tract store keeps each
// blob's count beside it, and the MCP server's answers count long texts
// chunk by chunk (each chunk's count with its JSON form, for the text that
// differs from the last by a message); no other count is cached.
package tokens
