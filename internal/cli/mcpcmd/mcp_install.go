package mcpcmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentlineage/lineage/hooks"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/config"
	"github.com/agentlineage/lineage/internal/fsx"
)

func newMCPInstallCmd(env *clienv.Env, install bool) *cobra.Command {
	var scope, cwd, command string
	var dryRun bool
	verb, short := "install", "Add lineage's MCP server to a harness's configuration"
	if !install {
		verb, short = "uninstall", "Remove lineage's MCP server from a harness's configuration"
	}
	cmd := &cobra.Command{
		Use:   verb + " claude|gemini|codex [--scope user|project] [--dry-run] [--cwd DIR]",
		Short: short,
		Long: short + `: the "lineage" server entry running this binary by its
absolute path (symlinks resolved) with the argument mcp, since a harness starts
MCP servers outside your shell, where lineage may not be on PATH (--command
PATH writes another program). With --scope project the entry runs "lineage"
from PATH instead: that file is committed and shared by every checkout and
teammate (install says so; --command there may also be a bare name). Only that entry changes: every other key and byte
of the file is kept, a second install changes nothing, and the file is replaced
atomically. --dry-run prints the diff and writes nothing.

Files: claude $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json (user),
.mcp.json (project); gemini its settings.json (user: $GEMINI_CLI_HOME/.gemini/,
else ~/.gemini/; project: .gemini/); codex $CODEX_HOME/config.toml, else
~/.codex/config.toml (user), .codex/config.toml (project).`,
		Args: clienv.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h := hooks.HarnessNamed(args[0])
			if h == nil || h == hooks.Cursor || h == hooks.Copilot {
				return clienv.UsageError("unknown harness %q (want claude, gemini or codex)", args[0])
			}
			path, err := h.MCPConfigPath(scope, hooks.Env{Lookup: env.Host().Lookup, Home: env.Host().Home}, fsx.Abs(env.Dir, cwd))
			if err != nil {
				return clienv.UsageError("%v", err)
			}
			program, err := mcpServerProgram(command, scope)
			if err != nil {
				return err
			}
			res, done, err := clienv.EditHarnessFile(cmd.Context(), env, path, install, dryRun,
				func(before []byte) ([]byte, error) {
					return h.InstallMCP(before, program, []string{"mcp"}, config.EnvVars())
				},
				h.UninstallMCP)
			if done || err != nil {
				return err
			}
			if !res.Written {
				fmt.Fprintf(env.Stderr, "lineage: %s already up to date\n", path)
				return nil
			}
			fmt.Fprintf(env.Stderr, "lineage: updated %s\n", res.Target)
			if install && scope == hooks.ScopeProject {
				note := "lineage is found on each teammate's PATH; --command sets another program"
				if command != "" {
					note = "--command's program must run on every teammate's machine"
				}
				fmt.Fprintf(env.Stderr, "lineage: the server runs %s mcp (a project file is shared: %s)\n", program, note)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&scope, "scope", hooks.ScopeUser, "configuration `scope`: user or project")
	cmd.Flags().StringVar(&cwd, "cwd", "", "project directory for --scope project (default: the current directory)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the diff, write nothing")
	if install {
		cmd.Flags().StringVar(&command, "command", "", "the server's program, an absolute `path` (default: this binary; lineage for --scope project)")
	}
	return cmd
}

// mcpServerProgram is the program the server entry runs: --command, else
// this binary by its absolute path (symlinks resolved), or "lineage" for a
// project file, which is committed and shared.
func mcpServerProgram(command, scope string) (string, error) {
	program := command
	switch {
	case program == "" && scope == hooks.ScopeProject:
		// A project file is committed and shared: each teammate's
		// harness finds lineage on its own PATH.
		program = "lineage"
	case program == "":
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("the running binary's path: %w", err)
		}
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		program = exe
	case scope == hooks.ScopeProject && program == filepath.Base(program):
		// A bare name: found on each teammate's PATH.
	case !filepath.IsAbs(program):
		return "", clienv.UsageError("--command %q: want an absolute path (MCP servers start without your shell's PATH)", program)
	}
	return program, nil
}
