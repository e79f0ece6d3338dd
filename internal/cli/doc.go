// Package cli holds lineage's cobra commands: one file per command group.
//
// Commands only parse flags, call a library package and print the result, as
// text or (with --json) as JSON. Streams, environment, working directory and
// clock come from an injected [Env], so every command runs in process in
// tests. Errors print to stderr as "lineage: <what went wrong>" and map to the
// exit codes shared by every command:
//
//	0  success
//	1  failure (message on stderr)
//	2  usage error (unknown flag, wrong arguments)
//	3  a validation or integrity finding (--strict, containment, verify)
package cli
