// Package compose builds an agent's whole context for one model request:
// the instructions that apply where it works, who the agent is, and what
// was said, under one token budget, with the source of every token.
//
// The model:
//
//   - The system part is pinned and comes first, in this order: the
//     initial AGENTS.md chain of the target's directory under the
//     instruction caps (the block `lineage instructions initial` prints);
//     the agent's merged profile when a slug is given (the merge `lineage
//     agents profile` prints, its instruction fields rendered as one
//     <agent_profile> block); then the tract's pinned system messages
//     (its instructions), in history order.
//   - The messages are the tract's history compiled by tract's own rules
//     under what the budget leaves once the system part is paid for.
//   - A budget the pinned part alone exceeds is a *[BudgetError] naming
//     its three largest contributors: nothing is silently cut.
//   - Every block carries its provenance: each instruction file with its
//     mtime, bytes and tokens; each profile field with the triad file,
//     JSON pointer and merge layer of each value; each message with its
//     commit, author tract and spawn path. What was left out is listed with
//     its reason (budget, cap, skip). Tokens are counted with the tract's
//     tokenizer and add up: a block's Tokens is its Overhead plus its files'
//     or fields' tokens, and the result's Tokens is its Overhead plus its
//     blocks'.
//
// Compile composes the three services — instructions.Start, agents.Resolve
// with Chain.RequireProfile and Profile.Document, tract's Repo.Compile and
// its renderers — and holds no rule of its own about any of them. Its
// output depends only on the files, the store and the options: the same
// inputs give byte-identical results.
package compose
