package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
	"github.com/spf13/cobra"
)

func newTractExportCmd(env *Env, f *tractFlags) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "export [--tract T | --all] > FILE",
		Short: "Write a tract (or the whole store) as a lineage export (JSON Lines)",
		Long: `export writes the tract (--tract, default the current one) with every commit
its refs reach, their blobs, its refs and its annotations, or with --all
every tract of the store with every stored commit, as JSON Lines (format in
docs/tract.md). The same data always exports to the same bytes, on SQLite
and PostgreSQL alike; 'lineage tract import --format lineage FILE' reads it
back into any store, checking every hash.`,
		Args: exactArgs(0),
		RunE: f.withReadSession(env, func(cmd *cobra.Command, _ []string, s *tractSession) error {
			o := tract.ExportOptions{All: all}
			if !all {
				o.Tract = s.tract
			} else if f.tract != "" {
				return usageError("give --tract or --all, not both")
			}
			_, err := s.repo.Export(cmd.Context(), env.Stdout, o)
			return tractErr(err)
		}),
	}
	cmd.Flags().BoolVar(&all, "all", false, "export every tract of the store")
	return cmd
}

// tractImportExport is import --format lineage: the store is created when
// missing, so an export moves into a new PostgreSQL database.
func tractImportExport(cmd *cobra.Command, env *Env, f *tractFlags, name string, data []byte, asJSON jsonFlag) error {
	// Check the whole file before the store is opened (or created).
	p, err := tract.ParseExport(bytes.NewReader(data))
	if err != nil {
		return findingError(fmt.Errorf("%s: %w", name, err))
	}
	// Without --store, LINEAGE_STORE or a store found upward, the store
	// is created here, where 'lineage tract init' makes it.
	url, err := storeURL(env, f.store, env.Dir)
	if err != nil {
		url = stores.Default(env.Dir)
	}
	// A store this import creates is removed again when the import is
	// refused: nothing is left behind, not even an empty schema.
	cleanup := newStoreCleanup(env, url)
	s, err := f.sessionAt(cmd, env, url, true, false)
	if err != nil {
		cleanup.undo()
		return err
	}
	rep, err := s.repo.ImportExport(cmd.Context(), p)
	s.Close()
	if err != nil {
		cleanup.undo()
	}
	var ee *tract.ExportError
	if errors.As(err, &ee) {
		return findingError(fmt.Errorf("%s: %w", name, err))
	}
	if err != nil {
		return tractErr(fmt.Errorf("%s: %w", name, err))
	}
	if asJSON.set {
		return writeJSON(env.Stdout, rep)
	}
	fmt.Fprintf(env.Stdout, "imported %d tracts, %d commits, %d blobs, %d refs, %d annotations\n", rep.Tracts, rep.Commits, rep.Blobs, rep.Refs, rep.Annotations)
	return nil
}

// storeCleanup remembers whether a SQLite store (and its directory)
// existed before a command that may create it.
type storeCleanup struct {
	path   string // "" when there is nothing to undo
	newDir bool
}

func newStoreCleanup(env *Env, url string) storeCleanup {
	loc, err := stores.Parse(url, env.Dir)
	if err != nil || loc.Driver != stores.SQLite {
		return storeCleanup{}
	}
	if _, err := os.Lstat(loc.Path); !errors.Is(err, fs.ErrNotExist) {
		return storeCleanup{}
	}
	_, err = os.Lstat(filepath.Dir(loc.Path))
	return storeCleanup{path: loc.Path, newDir: errors.Is(err, fs.ErrNotExist)}
}

// undo removes the store the command created (with its WAL files, and its
// directory when the command made that too and it is empty).
func (c storeCleanup) undo() {
	if c.path == "" {
		return
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(c.path + suffix)
	}
	if c.newDir {
		os.Remove(filepath.Dir(c.path))
	}
}
