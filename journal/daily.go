package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Daily is one contribution to an agent's day document,
// <context>/journal/YYYY-MM-DD.json (CLIA's `journal` command).
type Daily struct {
	Slug                         string
	AgentVersion                 string
	Highlights, Focus, NextSteps []string
	// Signature as in [Entry]: "auto" (or empty) resolves through the
	// merged agent profile.
	Signature   string
	DirsTouched []string
}

// DailyResult reports a day-document write.
type DailyResult struct {
	File    string `json:"file"`
	Written bool   `json:"written"`
	Created bool   `json:"created"`
	// Agency is the agency document that recorded DirsTouched, if any.
	Agency string       `json:"agency,omitempty"`
	Doc    *triad.Value `json:"-"`
}

// WriteDaily adds d to the day document of today (UTC, by the clock of
// opts). Unlike CLIA, which overwrites the day, an existing document is
// merged: its lists gain the new items (existing ones first, duplicates
// dropped), "timestamp" becomes now and agentVersion the given one; every
// other key stays. Adding nothing already there writes nothing. As in
// CLIA, DirsTouched are also unioned into the context's agency document
// (extensions["x-dirsTouched"], and "updated" becomes now) when it has one.
func WriteDaily(ctx context.Context, opts Options, d Daily) (*DailyResult, error) {
	res, err := writeDay(ctx, opts, d)
	if err != nil || len(nonBlank(d.DirsTouched)) == 0 {
		return res, err
	}
	t, err := ResolveTarget(opts.Agents, d.Slug, opts.Scope, opts.AgentsDir)
	if err != nil {
		return res, err
	}
	if sel, err := triad.SelectDir(t.Dir); err != nil || sel.Files[triad.Agency] == "" {
		return res, nil
	}
	var file string
	err = updateAgency(ctx, t, d.Slug, opts.now, func(now time.Time, doc, _ *triad.Value) (bool, error) {
		before := string(triad.Canonical(doc))
		if err := unionDirs(doc, d.DirsTouched); err != nil {
			return false, err
		}
		if string(triad.Canonical(doc)) == before {
			return false, nil
		}
		doc.Set("updated", triad.NewString(now.Format(time.RFC3339)))
		return true, nil
	}, &file)
	if err == nil {
		res.Agency = file
	}
	return res, err
}

func writeDay(ctx context.Context, opts Options, d Daily) (*DailyResult, error) {
	if len(nonBlank(d.Highlights))+len(nonBlank(d.Focus))+len(nonBlank(d.NextSteps)) == 0 {
		return nil, errors.New("a day entry needs at least one highlight, focus or next step")
	}
	t, err := ResolveTarget(opts.Agents, d.Slug, opts.Scope, opts.AgentsDir)
	if err != nil {
		return nil, err
	}
	sig, err := signature(opts, Entry{Slug: d.Slug, Signature: d.Signature})
	if err != nil {
		return nil, err
	}
	now := opts.now()
	jt := t
	jt.Dir = filepath.Join(t.Dir, "journal")
	// Through the root of the write root: the lock in the context, the day
	// file in its journal directory (see openDir).
	ctxDir, err := openDir(t.Root, t.Dir)
	if err != nil {
		return nil, err
	}
	defer ctxDir.Close()
	dir, err := openDir(t.Root, jt.Dir)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	if err := checkLock(t.Dir); err != nil {
		return nil, err
	}
	lock, err := fsx.LockFileIn(ctx, ctxDir, lockName)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	name := now.Format(time.DateOnly) + ".json"
	path := filepath.Join(jt.Dir, name)
	if err := checkFile(jt.Dir, path); err != nil {
		return nil, err
	}
	res := &DailyResult{File: path}
	doc, layout, perm := triad.NewObject(), triad.EncodeOptions{SpaceBeforeColon: true, SortKeys: true}, os.FileMode(0o644)
	if _, err := dir.Lstat(name); err == nil {
		if doc, layout, perm, _, err = readAgencyIn(dir, name, path); err != nil {
			return nil, err
		}
	} else {
		res.Created = true
		doc.Set("date", triad.NewString(now.Format(time.DateOnly)))
	}
	changed := res.Created
	for _, list := range []struct {
		key   string
		items []string
	}{{"highlights", d.Highlights}, {"focus", d.Focus}, {"nextSteps", d.NextSteps}, {"x-dirsTouched", d.DirsTouched}} {
		added, err := unionList(doc, list.key, nonBlank(list.items), res.Created && list.key != "x-dirsTouched")
		if err != nil {
			return nil, fmt.Errorf("%s: %w; nothing written", path, err)
		}
		changed = changed || added
	}
	if d.AgentVersion != "" && doc.Str("agentVersion") != d.AgentVersion {
		doc.Set("agentVersion", triad.NewString(d.AgentVersion))
		changed = true
	}
	if doc.Get("signature") == nil {
		doc.Set("signature", triad.NewString(sig))
		changed = true
	}
	res.Doc = doc
	if !changed {
		return res, nil
	}
	doc.Set("timestamp", triad.NewString(now.Format(time.RFC3339)))
	if err := fsx.WriteFileAtomicIn(dir, name, triad.Encode(doc, layout), perm); err != nil {
		return nil, err
	}
	res.Written = true
	return res, nil
}

// unionList appends the items missing from doc[key] (an array of strings,
// created when absent and create or items is non-empty) and reports whether
// any was added.
func unionList(doc *triad.Value, key string, items []string, create bool) (bool, error) {
	cur := doc.Get(key)
	if cur == nil || cur.Kind == triad.Null {
		if len(items) == 0 && !create {
			return false, nil
		}
		cur = stringArray(nil)
		doc.Set(key, cur)
	}
	if cur.Kind != triad.Array {
		return false, fmt.Errorf("%s is not an array", key)
	}
	have := map[string]bool{}
	for _, it := range cur.Items {
		if it.Kind == triad.String {
			have[it.Text] = true
		}
	}
	added := false
	for _, s := range items {
		if !have[s] {
			have[s] = true
			cur.Items = append(cur.Items, triad.NewString(s))
			added = true
		}
	}
	return added, nil
}
