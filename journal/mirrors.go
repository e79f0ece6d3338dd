package journal

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Mirror is one generated Markdown view.
type Mirror struct {
	File    string `json:"file"`
	Source  string `json:"source"`
	Changed bool   `json:"changed"`
}

// Mirrors renders .generated/<slug>.<kind>.triad.md beside every triad
// document of the contexts under the write root of opts (all slugs, or
// those given). Files whose bytes would not change are left alone; with
// dryRun nothing is written. The output depends only on the documents.
func Mirrors(opts Options, slugs []string, dryRun bool) ([]Mirror, error) {
	for _, s := range slugs {
		if err := agents.ValidateSlug(s); err != nil {
			return nil, err
		}
	}
	t, err := WriteRoot(opts.Agents, opts.Scope, opts.AgentsDir)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, s := range slugs {
		want[s] = true
	}
	var out []Mirror
	for _, dir := range agentsDirs(opts, t) {
		for _, slug := range listSlugs(dir) {
			if len(want) > 0 && !want[slug] {
				continue
			}
			ms, err := mirrorContext(t.Root, filepath.Join(dir, slug), slug, dryRun)
			if err != nil {
				return nil, err
			}
			out = append(out, ms...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out, nil
}

// agentsDirs are the agents roots under the write root (the fallback
// agents dir itself outside a repository).
func agentsDirs(opts Options, t Target) []string {
	if t.Workspace == "" {
		return []string{t.Root}
	}
	var out []string
	for _, r := range opts.Agents.Roots() {
		out = append(out, filepath.Join(t.Root, r))
	}
	return out
}

func listSlugs(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if agents.ValidateSlug(e.Name()) == nil {
			if fi, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && fi.IsDir() {
				out = append(out, e.Name())
			}
		}
	}
	sort.Strings(out)
	return out
}

var renderers = map[triad.DocKind]func(*triad.Value, string) []byte{
	triad.Agent: RenderAgent, triad.Agenda: RenderAgenda, triad.Agency: RenderAgency,
}

func mirrorContext(root, ctx, slug string, dryRun bool) ([]Mirror, error) {
	// The context is read, and its mirrors written, through a handle on
	// the context directory opened inside the write root (see openDir): no
	// swapped symlink leads a read or a write outside.
	if _, err := os.Stat(ctx); err != nil {
		return nil, nil
	}
	cdir, err := openDir(root, ctx)
	if err != nil {
		return nil, err
	}
	defer cdir.Close()
	sel, err := selectIn(cdir, ctx)
	if err != nil || sel.Empty() {
		return nil, nil
	}
	gen := filepath.Join(ctx, ".generated")
	var gdir *os.Root
	defer func() {
		if gdir != nil {
			gdir.Close()
		}
	}()
	var out []Mirror
	for _, k := range triad.Kinds {
		name, ok := sel.Files[k]
		if !ok {
			continue
		}
		src := filepath.Join(ctx, name)
		data, _, err := readIn(cdir, name, src)
		if err != nil {
			return nil, err
		}
		doc, err := triad.Decode(src, data)
		if err != nil {
			return nil, fmt.Errorf("mirror: %w", err)
		}
		body := renderers[k](doc, slug)
		base := slug + "." + string(k) + ".triad.md"
		file := filepath.Join(gen, base)
		if gdir == nil {
			// Opened without creating it, to compare; created below only
			// when something is written.
			gdir, _ = fsx.OpenDirIn(cdir, ".generated", false)
		}
		var old []byte
		if gdir != nil {
			old, _, _ = fsx.ReadRegularIn(gdir, base, -1) // a FIFO there must not block; it is replaced
		}
		m := Mirror{File: file, Source: src, Changed: !bytes.Equal(old, body)}
		out = append(out, m)
		if dryRun || !m.Changed {
			continue
		}
		if err := checkFile(gen, file); err != nil {
			return nil, err
		}
		if gdir == nil {
			if gdir, err = fsx.OpenDirIn(cdir, ".generated", true); err != nil {
				return nil, fmt.Errorf("refusing to write: %w", err)
			}
		}
		if err := fsx.WriteFileAtomicIn(gdir, base, body, 0o644); err != nil {
			return nil, err
		}
	}
	return out, nil
}
