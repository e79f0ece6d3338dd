package tractcmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"

	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/stores"
	"github.com/agentlineage/lineage/tract/wire"
	"github.com/spf13/cobra"
)

func newTractExportCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
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
		Args: clienv.ExactArgs(0),
		RunE: f.WithReadSession(env, func(cmd *cobra.Command, _ []string, s *clienv.TractSession) error {
			o := tract.ExportOptions{All: all}
			if !all {
				o.Tract = s.Tract
			} else if f.Tract != "" {
				return clienv.UsageError("give --tract or --all, not both")
			}
			_, err := s.Repo.Export(cmd.Context(), env.Stdout, o)
			return clienv.TractErr(err)
		}),
	}
	cmd.Flags().BoolVar(&all, "all", false, "export every tract of the store")
	return cmd
}

// maxImportBytes bounds what import reads from its FILE or stdin: an
// endless input (/dev/zero, a pipe that never ends) is refused at this
// size instead of filling memory.
const maxImportBytes = 256 << 20

// readImport reads import's input, name being a file or "-" (stdin), at
// most limit bytes; it returns the name messages use for it.
func readImport(env *clienv.Env, name string, limit int64) ([]byte, string, error) {
	var r io.Reader
	if name == "-" {
		if env.StdinTerminal {
			fmt.Fprintln(env.Stderr, "lineage: reading messages from stdin (end with Ctrl-D)")
		}
		r, name = env.Stdin, "stdin"
	} else {
		f, err := os.Open(fsx.Abs(env.Dir, name))
		if err != nil {
			return nil, name, fmt.Errorf("read %s: %w", name, err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
			return nil, name, fmt.Errorf("read %s: %d bytes, more than import reads (%d MiB): split it", name, fi.Size(), limit>>20)
		}
		r = f
	}
	// Every import format is JSON: an array or objects. An input that
	// starts otherwise (/dev/zero, a binary file) is refused at once.
	head := make([]byte, 512)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, name, fmt.Errorf("read %s: %w", name, err)
	}
	head = head[:n]
	if t := bytes.TrimLeft(head, " \t\r\n"); len(t) > 0 && t[0] != '[' && t[0] != '{' {
		return nil, name, fmt.Errorf("read %s: not JSON (it starts with byte %#02x; import reads a JSON array, JSON lines or a lineage export)", name, t[0])
	}
	data, err := io.ReadAll(io.LimitReader(io.MultiReader(bytes.NewReader(head), r), limit+1))
	if err != nil {
		return nil, name, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, name, fmt.Errorf("read %s: more than import reads (%d MiB): split it", name, limit>>20)
	}
	return data, name, nil
}

// tractImportExport is import --format lineage: the store is created when
// missing, so an export moves into a new PostgreSQL database.
func tractImportExport(cmd *cobra.Command, env *clienv.Env, f *clienv.TractFlags, name string, data []byte, asJSON clienv.JSONFlag) error {
	// Check the whole file before the store is opened (or created).
	p, err := tract.ParseExport(bytes.NewReader(data))
	if err != nil {
		return clienv.FindingError(fmt.Errorf("%s: %w", name, err))
	}
	// Without --store, LINEAGE_STORE or a store found upward, the store
	// is created here, where 'lineage tract init' makes it.
	url, err := env.Host().StoreURL(f.Store, env.Dir)
	if err != nil {
		url = stores.Default(env.Dir)
	}
	// A store this import creates is removed again when the import is
	// refused: nothing is left behind, not even an empty schema.
	cleanup := newStoreCleanup(env, url)
	s, err := f.SessionAt(cmd, env, url, true, false)
	if err != nil {
		cleanup.undo()
		return err
	}
	rep, err := s.Repo.ImportExport(cmd.Context(), p)
	s.Close()
	if err != nil {
		cleanup.undo()
	}
	var ee *tract.ExportError
	if errors.As(err, &ee) {
		return clienv.FindingError(fmt.Errorf("%s: %w", name, err))
	}
	if err != nil {
		return clienv.TractErr(fmt.Errorf("%s: %w", name, err))
	}
	if asJSON.Set {
		return clienv.WriteJSON(env.Stdout, rep)
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

func newStoreCleanup(env *clienv.Env, url string) storeCleanup {
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

func newTractImportCmd(env *clienv.Env, f *clienv.TractFlags) *cobra.Command {
	var format string
	var asJSON clienv.JSONFlag
	cmd := &cobra.Command{
		Use:   "import [--format openai|jsonl|lineage] FILE|-",
		Short: "Append every message of an OpenAI message array (or JSON lines) in one transaction, or add a lineage export",
		Long: `import --format openai|jsonl appends every message of FILE to the tract, in one
transaction. import --format lineage adds what 'lineage tract export' wrote
(tracts, blobs, commits, refs, annotations) after recomputing every hash:
a damaged or malformed export exits 3 and writes nothing; a tract that
already exists exits 1 and writes nothing. The store is created if needed,
so this is how a store moves to PostgreSQL (docs/postgres.md).`,
		Args: clienv.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env.NoteStreaming()
			name := args[0]
			switch format {
			case wire.ImportOpenAI, wire.ImportJSONL, "lineage":
			default:
				return clienv.UsageError("unknown --format %q (want openai, jsonl or lineage)", format)
			}
			data, name, err := readImport(env, name, maxImportBytes)
			if err != nil {
				return err
			}
			if format == "lineage" {
				return tractImportExport(cmd, env, f, name, data, asJSON)
			}
			var msgs iter.Seq2[tract.CommitRequest, error]
			switch format {
			case wire.ImportOpenAI:
				msgs = wire.OpenAIMessages(data)
			case wire.ImportJSONL:
				msgs = wire.JSONLMessages(data)
			default:
				return clienv.UsageError("unknown --format %q (want openai, jsonl or lineage)", format)
			}
			s, err := f.Session(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			// The messages stream into the transaction: a bad one found
			// late rolls it back (nothing is written) and is a finding.
			var bad error
			res, err := s.Repo.ImportSeq(cmd.Context(), s.Tract, func(yield func(tract.CommitRequest, error) bool) {
				for req, err := range msgs {
					if err != nil {
						bad = err
					}
					if !yield(req, err) || err != nil {
						return
					}
				}
			})
			switch {
			case err != nil && bad != nil && errors.Is(err, bad):
				return clienv.FindingError(fmt.Errorf("%s: %w", name, err))
			case err != nil:
				return inputErr(fmt.Errorf("%s: %w", name, err))
			}
			if res.Count > 0 {
				warnAfter(cmd, env, s, s.Tract)
			}
			if asJSON.Set {
				return clienv.WriteJSON(env.Stdout, res)
			}
			if res.Count == 0 {
				fmt.Fprintln(env.Stdout, "imported 0 messages")
				return nil
			}
			fmt.Fprintf(env.Stdout, "imported %d messages; head %s\n", res.Count, res.Head)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", wire.ImportOpenAI, "input format: openai (a JSON array), jsonl (one message per line) or lineage (a tract export)")
	asJSON.Add(cmd, "print {count, head} as JSON")
	return cmd
}
