// Package tractcmd is the `lineage tract` command group: version control
// for an LLM's context (commits, branches, tags, compile, merge, spawn,
// export and import, store upkeep). Files are named by family as in
// mcpserver: tract_history.go, tract_refs.go, tract_write.go,
// tract_compile.go, tract_status.go, tract_compress.go, tract_spawn.go,
// tract_export.go; tract_store.go holds the commands only the CLI has
// (init, new, list, rm, gc, migrate, verify).
package tractcmd
