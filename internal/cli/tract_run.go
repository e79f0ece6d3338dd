package cli

import "github.com/spf13/cobra"

// withSession adapts a command body that needs an open tract session into a
// cobra RunE: it opens the store named by the flags, runs fn and closes it.
func (f *tractFlags) withSession(env *Env, fn func(cmd *cobra.Command, args []string, s *tractSession) error) func(*cobra.Command, []string) error {
	return f.runSession(env, f.session, fn)
}

// withReadSession is withSession on a read-only store.
func (f *tractFlags) withReadSession(env *Env, fn func(cmd *cobra.Command, args []string, s *tractSession) error) func(*cobra.Command, []string) error {
	return f.runSession(env, f.readSession, fn)
}

func (f *tractFlags) runSession(env *Env, open func(*cobra.Command, *Env) (*tractSession, error), fn func(cmd *cobra.Command, args []string, s *tractSession) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		s, err := open(cmd, env)
		if err != nil {
			return err
		}
		defer s.Close()
		return fn(cmd, args, s)
	}
}
