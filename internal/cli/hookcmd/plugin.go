package hookcmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/agentlineage/lineage/hooks"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
)

// removePlugin is `hook uninstall` for a harness lineage reaches through a
// plugin file (opencode): the file goes whole, and only when lineage wrote
// it; --dry-run prints the diff.
func removePlugin(env *clienv.Env, h *hooks.Harness, path string, dryRun bool) error {
	before, err := fsx.ReadRegular(path, hooks.MaxSettingsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(env.Stderr, "lineage: %s does not exist; nothing to remove\n", path)
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if _, err := h.Uninstall(before, ""); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if dryRun {
		_, err := io.WriteString(env.Stdout, hooks.Diff(path, before, nil))
		return err
	}
	if err := os.Remove(path); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "lineage: removed %s\n", path)
	return nil
}
