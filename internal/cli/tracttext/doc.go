// Package tracttext draws tract listings as the CLI prints them in text
// mode: a log entry as one line ([LogLine]), a log as a text DAG ([Graph])
// or a Graphviz digraph ([Dot]), and tracts as a tree of spawn relations
// ([SpawnTree]). The domain (package tract) returns the structs; only the
// CLI's command groups import this package, so no library or other face
// depends on how a terminal shows them.
package tracttext
