// Package instructions loads hierarchical AGENTS.md instructions for a
// coding agent and tells it, cheaply, which further ones apply when it
// moves into another part of the tree.
//
// The model:
//
//   - The root is the project directory: a configured override, else the
//     nearest directory at or above the working directory that holds a
//     marker (".codelia", ".git" — a directory or a worktree's file —,
//     ".jj"), else the working directory. Paths are logical: symlinks in the
//     working directory are not resolved.
//   - The initial chain is each directory's file (the first of FileNames
//     that is a regular file) from the root down to the working directory,
//     rendered once as an <agents_context scope="initial"> block. Caps on
//     files and on content bytes (UTF-8 bytes after trimming trailing
//     whitespace) stop the load; they never truncate a file. Files cut by a
//     cap are not registered, so the resolver reports them later.
//   - A [Session] knows which files the agent has been given, each with its
//     version (mtime in nanoseconds and size) and physical identity
//     (device and inode). [Session.Resolve] walks from the root to a
//     target's directory with one stat per directory and file name — never
//     listing a directory — and reports files that are new or updated,
//     root to leaf, a bounded number per call. The agent reads the bodies
//     itself; the package only names paths (see [ResolveReminder]).
//   - Beyond the chain: "@path" imports in any loaded file ([ScanImports];
//     depth 5, cycles reported, confined to the root and allowed roots
//     through [RootOpener]), rule folders (.agents/rules, .claude/rules,
//     .cursor/rules: rules without "paths:", "globs:" or "applyTo:" load
//     with the chain, the others come with a
//     resolve of a matching path; only these folders are ever listed, by
//     the initial load, through [DirReader]), opt-in global files under
//     their own cap, exclude globs, and each file's cost in tokens.
//   - A session can be saved as a [State] file and restored, so several
//     processes share it; [UpdateState] serializes them with a file lock and
//     writes atomically. [Resume] compares a saved session with the present.
//
// Configuration comes from flags, the CODELIA_AGENTS_* environment
// ([SettingsFromEnv]), a JSON file ([ParseConfig]) and defaults, layered by
// [BuildConfig]. The filesystem is the [FS] interface, which cannot list
// directories.
package instructions
