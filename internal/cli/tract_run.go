package cli

import "github.com/spf13/cobra"

// validator is options that validate themselves (tract.CompileOptions,
// tract.SpawnOptions, …).
type validator interface{ Validate() error }

// check is a validation written in place.
type check func() error

func (c check) Validate() error { return c() }

// withSession adapts a command body that needs an open tract session into a
// cobra RunE: it validates the command's options (an invalid one is a usage
// error, and no store is opened), opens the store named by the flags, runs
// fn and closes the store.
func (f *tractFlags) withSession(env *Env, fn func(cmd *cobra.Command, args []string, s *tractSession) error, valid ...validator) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		for _, v := range valid {
			if err := v.Validate(); err != nil {
				return optionError(err)
			}
		}
		s, err := f.session(cmd, env)
		if err != nil {
			return err
		}
		defer s.Close()
		return fn(cmd, args, s)
	}
}
