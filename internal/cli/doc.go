// Package cli holds lineage's cobra commands, the command-line face over the
// library packages (see docs/architecture.md).
//
// Commands only parse flags, call a library package and print the result, as
// text or (with --json, added by one helper, [jsonFlag]) as JSON. Streams,
// environment, working directory and clock (which honours LINEAGE_NOW) come
// from an injected [Env], so every command runs in process in tests. Errors
// print to stderr as "lineage: <what went wrong>" and map to the exit codes
// shared by every command:
//
//	0  success
//	1  failure (message on stderr)
//	2  usage error (unknown flag, wrong arguments, options whose Validate fails)
//	3  a validation or integrity finding (--strict, containment, verify)
//
// Files follow one convention for every command group:
//
//   - GROUP.go: the group command, the flags its commands share, how a
//     command opens what it works on (an instruction session, a tract store
//     through tract/stores) and how the group's errors map to exit codes —
//     agents.go, instructions.go, tract.go, mcp.go;
//   - GROUP_FAMILY.go: one family of subcommands, each with the small text
//     renderer it prints with — agents_read.go, agents_doctor.go,
//     agents_write.go; instructions_session.go, instructions_explain.go;
//     tract_read.go, tract_write.go, tract_refs.go, tract_spawn.go,
//     tract_gc.go; mcp_tract.go;
//   - root.go, env.go and output.go serve every group.
package cli
