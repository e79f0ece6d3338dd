package journal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// BackupCleanup selects the backups CleanupBackups looks at: those of the
// slug's context at the write root, or of every directory under Dir.
type BackupCleanup struct {
	Slug string
	Dir  string
	// Apply removes the safe backups; otherwise nothing is written.
	Apply bool
}

// Backup is one `.bak` file beside triad documents: a migrate's
// (`<name>.bak`, the legacy name's for a rename) or CLIA's
// (`<name>.schema-<version>.bak`).
type Backup struct {
	File string `json:"file"`
	// Current is the document it is a backup of; "" when there is none.
	Current string `json:"current,omitempty"`
	Bytes   int64  `json:"bytes"`
	// Safe: the current document holds everything the backup does.
	Safe bool `json:"safe"`
	// Reason says why an unsafe backup is kept.
	Reason  string `json:"reason,omitempty"`
	Removed bool   `json:"removed"`
}

// Reasons a backup is kept.
const (
	KeepNoCurrent = "no current document"
	KeepHoldsMore = "it holds what the current document does not"
)

// CleanupBackups lists the `.bak` files of the directories c selects, sorted
// by path, each with the document it backs up and whether removing it is
// safe: the backup, brought to the current shape as migrate would, adds
// nothing to the current document — merged under it, the merge is the
// current document alone, and its notes and extensions (which a merge takes
// whole) equal the current ones. With c.Apply each safe backup is removed,
// under its directory's journal lock and after checking again there, so a
// write racing the cleanup cannot make it remove a backup that has become
// the only copy of something; a run killed midway leaves each backup there
// or gone, and a rerun finishes the job.
func CleanupBackups(ctx context.Context, opts Options, c BackupCleanup) ([]Backup, error) {
	dirs, base, err := tidyDirs(opts, c.Slug, c.Dir)
	if err != nil {
		return nil, err
	}
	out := []Backup{}
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".bak") {
				continue
			}
			b := judgeBackup(filepath.Join(d, e.Name()), nil)
			if info, err := e.Info(); err == nil {
				b.Bytes = info.Size()
			}
			if c.Apply && b.Safe {
				if b.Removed, err = removeBackup(ctx, base, b); err != nil {
					return append(out, b), err
				}
			}
			out = append(out, b)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out, nil
}

// BackupOf returns the document a backup named bak (a base name) is of, by
// name: bak without ".bak" (and without CLIA's ".schema-<version>"
// suffix), or, when that is a legacy name, the name migrate gives it.
// exists says whether a name is a regular file.
func BackupOf(bak string, exists func(name string) bool) (string, bool) {
	name, ok := strings.CutSuffix(bak, ".bak")
	if !ok || name == "" {
		return "", false
	}
	if i := strings.LastIndex(name, ".schema-"); i > 0 && strings.HasSuffix(name[:i], ".json") {
		name = name[:i]
	}
	if exists(name) {
		return name, true
	}
	if _, current, ok := triad.Match(name); ok && !current {
		if n := strings.TrimSuffix(name, ".json") + ".triad.json"; exists(n) {
			return n, true
		}
	}
	return "", false
}

// judgeBackup finds the current document of the backup at path and whether
// the backup is safe to remove. read reads a file of its directory (nil:
// from the file system).
func judgeBackup(path string, read func(name string) ([]byte, error)) Backup {
	dir := filepath.Dir(path)
	if read == nil {
		read = func(name string) ([]byte, error) {
			return fsx.ReadRegular(filepath.Join(dir, name), agents.MaxDocumentBytes)
		}
	}
	b := Backup{File: path}
	cur, ok := BackupOf(filepath.Base(path), func(n string) bool {
		fi, err := os.Lstat(filepath.Join(dir, n))
		return err == nil && fi.Mode().IsRegular()
	})
	if !ok {
		b.Reason = KeepNoCurrent
		return b
	}
	b.Current = filepath.Join(dir, cur)
	old, err := read(filepath.Base(path))
	if err != nil {
		b.Reason = fmt.Sprintf("unreadable: %v", err)
		return b
	}
	now, err := read(cur)
	if err != nil {
		b.Reason = fmt.Sprintf("the current document is unreadable: %v", err)
		return b
	}
	if reason := holdsAll(cur, filepath.Base(dir), old, now); reason != "" {
		b.Reason = reason
		return b
	}
	b.Safe = true
	return b
}

// holdsAll returns "" when now, the current document named cur of the
// context slug, holds everything old, its backup, does; else why not.
func holdsAll(cur, slug string, old, now []byte) string {
	k, _, ok := triad.Match(cur)
	if !ok {
		if string(old) == string(now) {
			return ""
		}
		return "not a triad document, and it differs from the current file"
	}
	nowDoc, err := triad.Decode(cur, now)
	if err != nil {
		return "the current document does not decode"
	}
	oldDoc, err := triad.Decode(cur+".bak", old)
	if err != nil {
		return "it does not decode (the current document does)"
	}
	// Both are compared in the current shape: what migrate would add to
	// the current document (a missing schemaVersion) is no difference.
	for _, d := range []*triad.Value{oldDoc, nowDoc} {
		migrateDoc(d, k)
		if k == triad.Agency {
			migrateContributions(d, slug)
		}
	}
	alone := triad.Merge(slug, []triad.Layer{{File: cur, Doc: nowDoc}})
	both := triad.Merge(slug, []triad.Layer{{File: "bak", Doc: oldDoc}, {File: cur, Doc: nowDoc}})
	if triad.CanonicalString(alone.Merged) != triad.CanonicalString(both.Merged) {
		return KeepHoldsMore
	}
	for _, key := range []string{"notes", "extensions"} {
		if o := oldDoc.Get(key); o != nil && !o.IsEmpty() && triad.CanonicalString(o) != triad.CanonicalString(nowDoc.Get(key)) {
			return KeepHoldsMore
		}
	}
	return ""
}

// removeBackup removes b's file if, read again under the lock of its
// directory, it is still safe; removed is false when it no longer is (or is
// gone already).
func removeBackup(ctx context.Context, base string, b Backup) (removed bool, err error) {
	dir, unlock, err := lockTidy(ctx, tidyFile{path: b.Current, base: base})
	if err != nil {
		return false, err
	}
	defer unlock()
	again := judgeBackup(b.File, func(name string) ([]byte, error) {
		data, _, err := readIn(dir, name, filepath.Join(filepath.Dir(b.File), name))
		return data, err
	})
	if !again.Safe {
		return false, nil
	}
	if err := dir.Remove(filepath.Base(b.File)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("remove %s: %w", b.File, err)
	}
	return true, nil
}
