package clienv

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/agentlineage/lineage/hooks"
)

// EditHarnessFile installs or uninstalls lineage in a harness's settings
// file (hooks or MCP servers) by byte splicing, under a lock kept in
// lineage's state directory (beside the file it would show in a project's
// checkout). It prints what every such edit prints first: that a file to
// uninstall from is missing, or the diff of a dry run; done says nothing is
// left to print.
func EditHarnessFile(ctx context.Context, env *Env, path string, install, dryRun bool, add, remove func(before []byte) ([]byte, error)) (res hooks.SettingsEdit, done bool, err error) {
	lockDir := filepath.Dir(path)
	if p := env.Host().StatePath("locks"); p != "" {
		lockDir = p
	}
	res, err = hooks.EditSettingsFile(ctx, path, lockDir, !dryRun, func(before []byte, missing bool) ([]byte, error) {
		var after []byte
		var err error
		switch {
		case install:
			after, err = add(before)
		case !missing:
			after, err = remove(before)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return after, nil
	})
	if err != nil {
		return res, true, err
	}
	if res.Missing && !install {
		fmt.Fprintf(env.Stderr, "lineage: %s does not exist; nothing to remove\n", path)
		return res, true, nil
	}
	if dryRun {
		_, err := io.WriteString(env.Stdout, hooks.Diff(path, res.Before, res.After))
		return res, true, err
	}
	return res, false, nil
}
