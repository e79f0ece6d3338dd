package cli

import (
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestExamplesParse: every line of every Examples: section names a command
// that exists, with flags it takes and arguments it accepts, so the help
// never shows a command that fails as pasted; every command group has one.
func TestExamplesParse(t *testing.T) {
	root := NewRootCmd(&clienv.Env{})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Annotations[clienv.GroupAnnotation] == "true" && c.Example == "" {
			t.Errorf("%s: a command group without Examples:", c.CommandPath())
		}
		for line := range strings.SplitSeq(c.Example, "\n") {
			for _, command := range strings.Split(strings.TrimSpace(line), "&&") {
				checkExample(t, root, c, command)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func checkExample(t *testing.T, root, owner *cobra.Command, command string) {
	t.Helper()
	if i := strings.Index(command, " #"); i >= 0 {
		command = command[:i]
	}
	// A command substitution is one word to the command it is in.
	for i := strings.Index(command, "$("); i >= 0; i = strings.Index(command, "$(") {
		end := strings.Index(command[i:], ")")
		if end < 0 {
			break
		}
		command = command[:i] + "value" + command[i+end+1:]
	}
	words := shellWords(command)
	for len(words) > 0 && strings.Contains(words[0], "=") {
		words = words[1:] // VAR=value before the command
	}
	if len(words) == 0 {
		return
	}
	if words[0] != "lineage" {
		t.Errorf("%s: example %q does not run lineage", owner.CommandPath(), command)
		return
	}
	c, rest, err := root.Find(words[1:])
	if err != nil {
		t.Errorf("%s: example %q: %v", owner.CommandPath(), command, err)
		return
	}
	if err := c.ParseFlags(rest); err != nil {
		t.Errorf("%s: example %q: %v", owner.CommandPath(), command, err)
		return
	}
	if c.Args != nil {
		if err := c.Args(c, c.Flags().Args()); err != nil {
			t.Errorf("%s: example %q: %v", owner.CommandPath(), command, err)
		}
	}
	// Flags keep their values between parses: reset them for the next.
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Changed {
			_ = f.Value.Set(f.DefValue)
			f.Changed = false
		}
	})
}

// shellWords splits a command line as a POSIX shell would for the simple
// quoting examples use: single and double quotes, no escapes.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
