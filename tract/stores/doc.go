// Package stores turns a store URL into an open [tract.Store]: it is where
// "which store am I talking to" is decided, for the CLI, the MCP server, the
// hooks and any Go program that embeds lineage.
//
// A URL is one of:
//
//   - sqlite:PATH or a plain PATH: an SQLite file ([tract/sqlite]); a
//     relative path is relative to [Options.Dir];
//   - postgres://… or postgresql://…: a PostgreSQL database
//     ([tract/postgres]).
//
// Both drivers are listed in this package's opener table, not registered
// from init functions, so what a build can open is visible here. [Locate]
// finds the project's default store (the nearest .lineage/lineage.db
// upward), [Redact] hides a password before a URL is shown, and [Parse]
// says which driver a URL names without opening it. Package tract itself
// never imports a store; this package imports both.
package stores
