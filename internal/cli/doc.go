// Package cli is lineage's command line: the root command, which builds the
// command groups and runs one command line (Main, Run), over the face's
// library packages (see docs/architecture.md).
//
// Each top-level command group lives in a package of its own under this
// one — tractcmd, agentscmd, instructionscmd, skillscmd, hookcmd, mcpcmd,
// contextcmd, servecmd — and every group package offers the same two names:
// Short, its one-line help, and NewCmd, which builds its command tree around
// a [clienv.Env]. The root lists them in its groups table and builds in full
// only the group a command line names. Groups never import each other
// (internal/deptest holds the rule); what several of them share — the Env,
// exit errors, --json output, the flag grammar, signals, and the flag sets
// and openers more than one group takes (instruction, agent and skills
// options, the tract store) — lives in their base, package clienv.
//
// Commands only parse flags, call a library package and print the result, as
// text or (with --json, added by one helper, [clienv.JSONFlag]) as JSON.
// Streams, environment, working directory and clock (which honours
// LINEAGE_NOW) come from an injected [clienv.Env], so every command runs in
// process in tests. Errors print to stderr as "lineage: <what went wrong>"
// and map to the exit codes shared by every command:
//
//	0  success
//	1  failure (message on stderr)
//	2  usage error (unknown flag, wrong arguments, options whose Validate fails)
//	3  a validation or integrity finding (--strict, containment, verify)
//
// Files follow one convention in every group package:
//
//   - GROUP.go: the group command, the flags only its commands share, and
//     how the group's errors map to exit codes;
//   - GROUP_FAMILY.go: one family of subcommands, each with the small text
//     renderer it prints with. A family the MCP server offers too has the
//     same file name in mcpserver: tract_history.go (log, show, find, diff,
//     blame), tract_refs.go, tract_write.go, tract_compile.go,
//     tract_status.go, tract_compress.go, tract_spawn.go, tract_export.go.
//
// The testscripts of every command (testdata/script/*.txtar) run here,
// through Run. A group's own Go tests sit in its package as an external
// test package (package tractcmd_test, …) and drive it through [Run] too.
package cli
