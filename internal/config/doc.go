// Package config is what the host says, read once: the environment
// variables lineage honours (LINEAGE_STORE, LINEAGE_SESSIONS_STORE,
// LINEAGE_TRACT, LINEAGE_NOW,
// LINEAGE_SKILLS_USER, LINEAGE_SKILLS_PATH, the instructions'
// CODELIA_AGENTS_*), the user's home and lineage's state directory, and the
// choices that follow from them with a flag on top: which store and tract a
// command works on, which clock it writes times with, which skill folders
// and instruction settings apply.
//
// A [Host] is read from a variable lookup and the working directory by
// [Read]; every choice that also has a flag takes the flag's value first
// (flag > environment > default), and a variable is trimmed of surrounding
// space the same way wherever it is read (a variable that is only space is
// unset). The CLI is its only user: library packages take what they need as
// options, and config imports no face.
package config
