package tractcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
)

const Short = "Version-controlled LLM context: commits, branches, compile"

func NewCmd(env *clienv.Env) *cobra.Command {
	cmd := clienv.GroupCmd("tract", Short,
		`A tract is one agent's context history: a DAG of commits holding messages,
instructions and tool calls. Compile turns a head into the message list an
LLM receives, under an optional token budget.

Store: --store URL or LINEAGE_STORE (sqlite:PATH, a plain path, postgres://…);
default: the nearest .lineage/lineage.db upward from the working directory.
Tract: --tract NAME or LINEAGE_TRACT, default main.
Refs: full hash, unique prefix (4+ characters), branch, tag, HEAD, HEAD~N, TRACT:REF.`)
	cmd.Example = `  lineage tract init
  lineage tract commit --text "Ship the release notes on Friday."
  lineage tract commit --type instruction --name style --text "Answer in short sentences." --pin
  lineage tract log -n 5
  lineage tract compile --budget 4000 --format anthropic
  lineage tract branch shorter && lineage tract switch shorter`
	f := &clienv.TractFlags{}
	cmd.PersistentFlags().StringVar(&f.Store, "store", "", "store URL or path (default: LINEAGE_STORE, then the nearest .lineage/lineage.db)")
	cmd.PersistentFlags().StringVar(&f.Tract, "tract", "", "tract name (default: LINEAGE_TRACT, then main)")
	cmd.PersistentFlags().IntVar(&f.PoolSize, "pool-size", 0, "PostgreSQL stores: most connections this process opens (default: the URL's pool_max_conns, else max(4, CPUs))")
	cmd.AddCommand(
		newTractInitCmd(env, f), newTractNewCmd(env, f), newTractListCmd(env, f), newTractRmCmd(env, f),
		newTractCommitCmd(env, f), newTractImportCmd(env, f), newTractEditCmd(env, f), newTractAnnotateCmd(env, f),
		newTractLogCmd(env, f), newTractShowCmd(env, f), newTractCompileCmd(env, f), newTractBlameCmd(env, f),
		newTractBranchCmd(env, f), newTractSwitchCmd(env, f), newTractCheckoutCmd(env, f), newTractResetCmd(env, f),
		newTractMergeCmd(env, f), newTractCherryPickCmd(env, f),
		newTractSpawnCmd(env, f), newTractMergeFromCmd(env, f),
		newTractGCCmd(env, f), newTractVerifyCmd(env, f), newTractMigrateCmd(env, f),
		newTractTagCmd(env, f), newTractTagsCmd(env, f), newTractFindCmd(env, f), newTractExportCmd(env, f),
		newTractCompressCmd(env, f), newTractDiffCmd(env, f), newTractStatusCmd(env, f), newTractConfigCmd(env, f),
		newTractPruneCmd(env, f),
	)
	return cmd
}

// inputErr maps an error about the content of an input file to exit
// codes: a validation problem there is a finding (3).
func inputErr(err error) error {
	var ve *tract.ValidationError
	if errors.As(err, &ve) {
		return clienv.FindingError(err)
	}
	return clienv.TractErr(err)
}

// tractReadInput reads --text, --file or stdin (in that order of
// preference). Text that is empty or only white space is a usage error
// naming where it came from, unless allowEmpty (a tool_call carries its
// calls, not text).
func tractReadInput(env *clienv.Env, text string, textSet bool, file string, allowEmpty bool) (string, error) {
	var body, from string
	switch {
	case textSet && file != "":
		return "", clienv.UsageError("give --text or --file, not both")
	case textSet:
		body, from = text, "--text"
	case file != "" && file != "-":
		from = "--file " + fsx.LineSafe(file)
		f, err := os.Open(fsx.Abs(env.Dir, file))
		if err != nil {
			return "", fmt.Errorf("read %s: %w", file, err)
		}
		b, err := readContent(f, from)
		f.Close()
		if err != nil {
			return "", err
		}
		body = string(b)
	default:
		if env.Stdin == nil {
			return "", clienv.UsageError("give --text, --file or content on stdin")
		}
		if env.StdinTerminal {
			fmt.Fprintf(env.Stderr, "lineage: reading %s from stdin (end with Ctrl-D)\n", "the text")
		}
		from = "stdin"
		b, err := readContent(env.Stdin, from)
		if err != nil {
			return "", err
		}
		body = string(b)
	}
	if !allowEmpty && strings.TrimSpace(body) == "" {
		return "", clienv.UsageError("%s is empty: a commit needs text (give --text, --file or content on stdin)", from)
	}
	return body, nil
}

// readContent reads one commit's text, refusing (a usage error) as soon as
// it holds more bytes than a commit's content may: a 68 MB file is not read
// to the end to be refused.
func readContent(r io.Reader, from string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, tract.MaxContentBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", from, err)
	}
	if len(b) > tract.MaxContentBytes {
		return nil, clienv.UsageError("invalid content: %s holds more than %d bytes, the limit for one commit", from, tract.MaxContentBytes)
	}
	return b, nil
}

// readStdin reads all of stdin. On a terminal it first says on stderr
// that it waits for input, so a command never hangs silently.
func readStdin(env *clienv.Env, what string) ([]byte, error) {
	if env.StdinTerminal {
		fmt.Fprintf(env.Stderr, "lineage: reading %s from stdin (end with Ctrl-D)\n", what)
	}
	b, err := io.ReadAll(env.Stdin)
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	return b, nil
}
