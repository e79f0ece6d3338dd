// Package agents finds the triad contexts of an agent and merges them.
//
// Seen from a working path P, a domain root is any directory that may hold
// an agents root (".clia/agents" by default, more can be configured, such as
// ".wrkstrm/clia/agents"). A context is <domain>/<agents root>/<slug>/ when
// it holds at least one triad document.
//
// The default chain is every ancestor of P, from "/" down to P, plus every
// submodule declared in an ancestor's .gitmodules that contains P; a sibling
// submodule never joins, so two submodules that share a slug never see each
// other's agents. Contexts are ordered global → local (depth, then path) and
// the most local one wins a conflict.
//
// The most local agent document may carry a rootChain directive: explicit
// (only the listed roots plus the most local context) or hybrid (the default
// chain plus the listed roots). With containment enforced (the default) every
// listed root must be P or contain it; otherwise resolution fails with a
// *ContainmentError. Without it, a root that does not contain P is foreign:
// it goes before every context of P's own chain, so it never outranks the
// agent's own context.
//
// Each document's inherits (then extensions.inherits) name lower-precedence
// documents loaded before it, depth-first, once each (one visited set by real
// path), at most 16 levels deep, never outside the workspace unless allowed
// and never over the network. [Chain.Profile] merges the layers with the
// rules of package triad and keeps per-value provenance for --explain.
// [Doctor] flags an active agent whose layers never reach the root
// directives document (<workspace>/.clia/agents/root/).
//
// [CollectAgenda] is the agenda view across agents: the merged agenda of
// every context under the workspace that has its own agenda document, split
// into current items, horizons, milestones and backlog, and rolled up into
// day, week and month windows counted in whole UTC days from an injected
// "now".
package agents
