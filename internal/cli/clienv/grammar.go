package clienv

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentlineage/lineage/internal/fsx"
)

// The rules every command follows are written down in docs/cli.md; this
// file holds the pieces several command groups share.

// FlagError turns cobra's and pflag's flag errors into usage errors worded
// in flags: a value pflag could not parse names the flag and what it wants,
// never the Go function that failed ("strconv.ParseInt: …").
func FlagError(_ *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) {
		err = fmt.Errorf("--%s: %s", iv.GetFlag().Name, describeFlagValueError(iv.GetValue(), errors.Unwrap(iv)))
	}
	return &ExitError{Code: ExitUsage, Err: err}
}

func describeFlagValueError(value string, cause error) string {
	var ne *strconv.NumError
	if errors.As(cause, &ne) {
		switch {
		case ne.Func == "ParseBool":
			return fmt.Sprintf("want true or false, got %q", value)
		case errors.Is(ne.Err, strconv.ErrRange):
			return fmt.Sprintf("%q is out of range", value)
		}
		return fmt.Sprintf("want a whole number, got %q", value)
	}
	var pe positiveError
	if errors.As(cause, &pe) {
		return pe.Error()
	}
	if strings.HasPrefix(cause.Error(), "time: ") {
		return fmt.Sprintf("want a duration such as 500ms, 2s or 1m, got %q", value)
	}
	return fmt.Sprintf("invalid value %q", value)
}

// positiveInt is an int flag that only takes whole numbers > 0: a flag the
// user leaves out keeps its zero value ("no limit"), while an explicit 0 or
// a negative number is a usage error rather than a silent "no limit".
type positiveInt struct {
	p *int
	// hint says what leaving the flag out means.
	hint string
}

type positiveError struct {
	value string
	hint  string
}

func (e positiveError) Error() string {
	return fmt.Sprintf("want a whole number > 0, got %q%s", e.value, e.hint)
}

func (v positiveInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return err
	}
	if n <= 0 {
		return positiveError{value: s, hint: v.hint}
	}
	*v.p = n
	return nil
}

func (v positiveInt) String() string {
	if v.p == nil || *v.p == 0 {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (positiveInt) Type() string { return "int" }

// BudgetFlag registers --budget: tokens > 0, absent for no budget.
func BudgetFlag(cmd *cobra.Command, p *int, usage string) {
	cmd.Flags().Var(positiveInt{p: p, hint: " (leave --budget out for no budget)"}, "budget", usage+" (a whole number > 0; leave out for no budget)")
}

// ExistingDir resolves a --cwd or --path value against the working
// directory and checks that it exists: a path that does not is an error
// naming the flag, never an empty result.
func ExistingDir(env *Env, flag, value string, wantDir bool) (string, error) {
	p := fsx.Abs(env.Dir, value)
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("--%s %s: no such directory", flag, fsx.LineSafe(value))
	case err != nil:
		return "", fmt.Errorf("--%s %s: %w", flag, fsx.LineSafe(value), err)
	case wantDir && !fi.IsDir():
		return "", fmt.Errorf("--%s %s: not a directory", flag, fsx.LineSafe(value))
	}
	return p, nil
}
