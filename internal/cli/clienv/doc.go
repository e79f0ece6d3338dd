// Package clienv is what lineage's command groups share: the Env a command
// runs in (streams, variables, working directory, clock, terminals), the
// exit errors and codes (UsageError, FindingError, SilentExit), --json output
// (JSONFlag, WriteJSON), the flag grammar (FlagError, BudgetFlag,
// ExistingDir, the argument validators, GroupCmd), the stop signals, the
// guarded HTTP listener of the serving commands, and the flag sets and
// openers more than one group takes: instruction, agent and skills options
// and the tract store (TractFlags, TractSession, OpenRepo).
//
// What the host says (variables, home, state directory, the store and tract
// a flag leaves to the environment, the clock) is read once, by
// internal/config, and reached through [Env.Host].
//
// It imports no command group; the groups import it.
package clienv
