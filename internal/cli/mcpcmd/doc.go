// Package mcpcmd is the `lineage mcp` command group: serving lineage as an
// MCP server over stdio or streamable HTTP, and installing it in the
// harnesses' MCP settings.
package mcpcmd
