package clienv

import (
	"fmt"
)

// Exit codes shared by every command.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
	ExitFinding = 3
)

// ExitError carries the exit code a command wants. Commands return it through
// [UsageError] and [FindingError]; anything else exits 1.
type ExitError struct {
	Code int
	Err  error
	// Silent: the command already printed what it had to say.
	Silent bool
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// UsageError marks err as a usage error (exit 2).
func UsageError(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// FindingError marks err as a validation or integrity finding (exit 3).
func FindingError(err error) error {
	return &ExitError{Code: ExitFinding, Err: err}
}

// SilentExit exits with code without printing anything more.
func SilentExit(code int) error {
	return &ExitError{Code: code, Err: fmt.Errorf("exit %d", code), Silent: true}
}
