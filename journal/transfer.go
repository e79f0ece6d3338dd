package journal

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Transfer asks to promote agency entries of Slug from the write root of
// From to the write root of To, which must be an ancestor domain.
type Transfer struct {
	Slug     string
	From, To string
	// IDs selects entries; empty means all.
	IDs    []string
	DryRun bool
}

// TransferResult lists what was (or, with DryRun, would be) copied.
type TransferResult struct {
	From    string   `json:"from"`
	To      string   `json:"to"`
	File    string   `json:"file"`
	Copied  []string `json:"copied"`
	Skipped []string `json:"skipped"`
	DryRun  bool     `json:"dryRun"`
}

// entryKey identifies an entry for transfer: its id, else the hash of its
// content without transferredFrom.
func entryKey(e *triad.Value) string {
	if id := e.Str("id"); id != "" {
		return id
	}
	c := e.Clone()
	if c.Kind == triad.Object {
		c.Delete("transferredFrom")
	}
	sum, err := contentID(c)
	if err != nil {
		return triad.CanonicalString(c)
	}
	return "sha256:" + sum
}

// RunTransfer copies entries; copies keep their id and gain
// "transferredFrom" (the source write root relative to the workspace root).
// Entries already in the destination are skipped, so a repeated transfer
// writes nothing.
func RunTransfer(ctx context.Context, opts Options, tr Transfer) (*TransferResult, error) {
	src, dst, err := transferTargets(opts, tr)
	if err != nil {
		return nil, err
	}
	srcFile, chosen, err := sourceEntries(src, tr)
	if err != nil {
		return nil, err
	}
	res := &TransferResult{From: src.Root, To: dst.Root, Copied: []string{}, Skipped: []string{}, DryRun: tr.DryRun}
	edit := func(now time.Time, doc, entries *triad.Value) (bool, error) {
		have := map[string]bool{}
		for _, it := range entries.Items {
			have[entryKey(it)] = true
		}
		var copies []*triad.Value
		for _, e := range chosen {
			k := entryKey(e)
			if have[k] {
				res.Skipped = append(res.Skipped, k)
				continue
			}
			have[k] = true
			c := e.Clone()
			c.Set("transferredFrom", triad.NewString(src.Source))
			copies = append(copies, c)
			res.Copied = append(res.Copied, k)
		}
		if len(copies) == 0 || tr.DryRun {
			return false, nil
		}
		insertByTime(entries, copies)
		doc.Set("updated", triad.NewString(now.Format(time.RFC3339)))
		return true, nil
	}
	if tr.DryRun {
		err = dryRunAgency(dst, tr.Slug, edit, &res.File)
	} else {
		err = updateAgency(ctx, dst, tr.Slug, opts.now, edit, &res.File)
	}
	if err != nil {
		return nil, fmt.Errorf("transfer from %s: %w", srcFile, err)
	}
	return res, nil
}

func transferTargets(opts Options, tr Transfer) (src, dst Target, err error) {
	at := func(p string) (Target, error) {
		o := opts.Agents
		o.Path = fsx.Abs(opts.Agents.Path, p)
		return ResolveTarget(o, tr.Slug, opts.Scope, opts.AgentsDir)
	}
	if src, err = at(tr.From); err != nil {
		return
	}
	if dst, err = at(tr.To); err != nil {
		return
	}
	if fsx.Equal(src.Root, dst.Root) || !fsx.Contains(dst.Root, src.Root) {
		err = fmt.Errorf("destination write root %s is not an ancestor domain of the source write root %s", dst.Root, src.Root)
	}
	return
}

// sourceEntries reads the source agency and picks the requested entries.
func sourceEntries(src Target, tr Transfer) (string, []*triad.Value, error) {
	sel, err := triad.SelectDir(src.Dir)
	if err != nil || sel.Files[triad.Agency] == "" {
		return "", nil, fmt.Errorf("no agency document in %s", src.Dir)
	}
	file := filepath.Join(src.Dir, sel.Files[triad.Agency])
	doc, _, _, err := readAgency(file)
	if err != nil {
		return "", nil, err
	}
	entries := doc.Get("entries")
	if entries == nil || entries.Kind != triad.Array {
		return file, nil, nil
	}
	if len(tr.IDs) == 0 {
		return file, entries.Items, nil
	}
	byKey := map[string]*triad.Value{}
	for _, e := range entries.Items {
		byKey[entryKey(e)] = e
	}
	var out []*triad.Value
	for _, id := range tr.IDs {
		e, ok := byKey[id]
		if !ok {
			return "", nil, fmt.Errorf("entry id %q not found in %s", id, file)
		}
		out = append(out, e)
	}
	return file, out, nil
}

// dryRunAgency runs edit on the destination without locking or writing.
func dryRunAgency(t Target, slug string, edit func(now time.Time, doc, entries *triad.Value) (bool, error), file *string) error {
	sel, _ := triad.SelectDir(t.Dir)
	name, exists := sel.Files[triad.Agency]
	if !exists {
		name = slug + "@" + filepath.Base(t.Root) + ".agency.triad.json"
	}
	*file = filepath.Join(t.Dir, name)
	doc := newAgencyDoc(slug, time.Time{})
	if exists {
		var err error
		if doc, _, _, err = readAgency(*file); err != nil {
			return err
		}
	}
	entries := doc.Get("entries")
	if entries == nil || entries.Kind != triad.Array {
		entries = stringArray(nil)
	}
	_, err := edit(time.Time{}, doc, entries)
	return err
}
