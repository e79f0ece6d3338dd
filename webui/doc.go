// Package webui is lineage's read-only web face: the pages `lineage serve`
// shows of a tract store and of the instructions and agents seen from a
// directory.
//
// Like the CLI and the MCP server it is a thin face over the services: every
// page calls one or two library functions (tract.Repo's List, Log, Show,
// Blame, Compile, Diff and Find; instructions.Explain; agents.Resolve and a
// profile's provenance) and renders their result with html/template, whose
// contextual escaping is the only escaping here. Nothing is written: the
// store is opened read-only by the caller, and no handler changes a file.
//
// The pages work with JavaScript off: tables and the commit graph (an inline
// SVG drawn on the server) are plain HTML. Assets (one stylesheet) are
// embedded; the page loads nothing from the network.
//
// Large stores stay cheap: the graph shows a window of the newest commits
// (tract.LogOptions{N, Skip} reads about Skip+N commits, never the history),
// and every list is paged or bounded. Stored text is shown bounded
// ([MaxShownBytes]) with control characters made visible.
//
// URLs are stable, so a link can be shared on the machine or within a team:
//
//	/                                   every tract
//	/tract/NAME/graph?skip=K            a window of the graph
//	/tract/NAME/commit/HASH             one commit: content, annotations, blame
//	/tract/NAME/compile?budget=N&format=F&at=REF
//	/tract/NAME/diff?a=REF&b=REF
//	/tract/NAME/find?q=WORDS
//	/instructions?dir=DIR&slug=SLUG     the AGENTS.md chain and an agent profile
package webui
