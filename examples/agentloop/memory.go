package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// projectKey is the metadata key of the commit that ties a store to the
// project it remembers.
const projectKey = "agentloop.project"

// Memory is an agent's store, opened for one project.
type Memory struct {
	Repo  *tract.Repo
	Tract string
	store *sqlite.Store
}

// OpenMemory opens (creating it if needed) the SQLite store at path for
// the project directory project. A store remembers one project: the first
// run commits the project's path, and a later run for another project is
// refused, so that one project's conversation and file contents never
// reach the requests of another.
func OpenMemory(ctx context.Context, path, project string) (*Memory, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	st, err := sqlite.Open(ctx, path, sqlite.Options{Create: true})
	if err != nil {
		return nil, err
	}
	m := &Memory{Repo: tract.New(st, tract.Options{}), Tract: tract.DefaultTract, store: st}
	if err := m.claim(ctx, path, project); err != nil {
		st.Close()
		return nil, err
	}
	return m, nil
}

// claim checks that the store belongs to project, or makes it so.
func (m *Memory) claim(ctx context.Context, path, project string) error {
	if _, _, err := m.Repo.Init(ctx); err != nil {
		return err
	}
	found, err := m.Repo.Find(ctx, m.Tract, tract.FindOptions{Type: tract.TypeMetadata, AllTracts: true})
	if err != nil {
		return err
	}
	for _, f := range found {
		var meta map[string]string
		if json.Unmarshal(f.Commit.Meta, &meta) != nil || meta[projectKey] == "" {
			continue
		}
		if meta[projectKey] != project {
			return fmt.Errorf("%s remembers project %s, not %s: give this project its own store (--store), or run without --store to use %s",
				path, meta[projectKey], project, filepath.Join(project, ".lineage", "lineage.db"))
		}
		return nil
	}
	meta, err := json.Marshal(map[string]string{projectKey: project})
	if err != nil {
		return err
	}
	_, err = m.Repo.Commit(ctx, m.Tract, tract.CommitRequest{
		Content: tract.Content{Type: tract.TypeMetadata, Text: "agentloop project " + project},
		Meta:    meta,
	})
	return err
}

// Close closes the store.
func (m *Memory) Close() error { return m.store.Close() }
