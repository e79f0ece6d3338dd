// Package mcpserver serves lineage to coding agents over the Model Context
// Protocol, on the official Go SDK.
//
// The model:
//
//   - A [Server] wraps the library packages as MCP tools whose names,
//     arguments and results mirror the CLI and its --json output (the same
//     structs are returned; the SDK derives each tool's input and output
//     schema from them). Every tool states honestly whether it is
//     read-only, destructive and idempotent.
//   - The instruction session (which AGENTS.md files the agent has been
//     given) lives in the server: one per MCP session, so
//     instructions_resolve reports only what this client has not seen.
//     With Options.Stateless there is one session for everybody, saved in
//     the store's directory under a file lock, so stateless HTTP replicas,
//     several stdio servers and the CLI share it.
//   - Results stay under a token cap (10,000 by default): long lists come in
//     pages with an opaque cursor, long texts are left out and named by a
//     resource the client can read instead.
//   - Resources: lineage://instructions/initial is the initial AGENTS.md
//     block. A client subscribed to it hears notifications/resources/updated
//     when an AGENTS.md the server has handed out changes on disk (the
//     server stats those files every Options.PollInterval while someone is
//     subscribed; it never lists directories).
//   - Transports: [Server.ServeStdio] answers every request it has read
//     before it returns at end of input (see [StdioTransport] for why that
//     needs care), and [Server.HTTPHandler] serves streamable HTTP on /mcp,
//     refusing foreign Origins (403) and, when a token is set, requests
//     without it (401).
//   - A client's roots narrow the working directory: tools that default to
//     it use the first root inside Options.Cwd.
package mcpserver
