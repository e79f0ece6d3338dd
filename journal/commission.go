package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// Commission creates an agent (CLIA's `agents commission`,
// .clia/schemas/specs/clia-agents-commission.v1.md).
type Commission struct {
	Slug  string
	Title string
	Role  string
	// Summary is the roster row's mission line (default: Role, else Title).
	Summary string
	// Signature becomes extensions.journalSignature when set.
	Signature string
	// From names a template: a directory holding triad documents (relative
	// to the path), else a slug whose most local context is used. Its agent
	// and agenda documents are copied with the identity fields replaced.
	From   string
	DryRun bool
}

// CommissionFile is one file commission writes or would write.
type CommissionFile struct {
	Kind string `json:"kind"`
	File string `json:"file"`
	// State: "created", "would create" or "exists" (left untouched).
	State string `json:"state"`
	// Content is the document written (or that would be).
	Content string `json:"-"`
}

// CommissionResult reports a commission.
type CommissionResult struct {
	AgentPath string           `json:"agentPath"`
	Files     []CommissionFile `json:"files"`
	Roster    *RosterResult    `json:"roster"`
}

// Commissioned scaffolds the three triad documents of c.Slug at the write
// root of opts and adds the agent's AGENTS.md roster row there. It is
// idempotent: a kind that already has a document in the context directory
// is left as it is, and the roster row is not added twice. The new agency
// log starts with one "Commissioned — <title>" entry tagged commission,
// routing, as the spec asks.
func Commissioned(ctx context.Context, opts Options, c Commission) (*CommissionResult, error) {
	if !commissionSlug().MatchString(c.Slug) {
		return nil, fmt.Errorf("slug %q: a new agent's slug must be kebab case (^[a-z0-9]+(-[a-z0-9]+)*$)", c.Slug)
	}
	if strings.TrimSpace(c.Title) == "" {
		c.Title = c.Slug
	}
	t, err := ResolveTarget(opts.Agents, c.Slug, opts.Scope, opts.AgentsDir)
	if err != nil {
		return nil, err
	}
	tmpl, err := loadTemplate(opts.Agents, c.From)
	if err != nil {
		return nil, err
	}
	now := opts.now()
	docs, err := scaffold(opts, c, t, tmpl, now)
	if err != nil {
		return nil, err
	}
	res := &CommissionResult{AgentPath: t.Dir}
	root := t.Root
	agentsRoot := opts.Agents.Roots()[0]
	if t.Workspace == "" {
		root, agentsRoot = filepath.Dir(t.Root), filepath.Base(t.Root)
	}
	// The roster is checked before anything is created: a roster that
	// cannot be written (a symlink leading outside, not a regular file)
	// must not leave a half-commissioned agent behind.
	if err := checkRoster(root); err != nil {
		return nil, err
	}
	existing := triad.Selection{Files: map[triad.DocKind]string{}}
	var dir *os.Root
	if !c.DryRun {
		if dir, err = openDir(t.Root, t.Dir); err != nil {
			return nil, err
		}
		defer dir.Close()
		if err := checkLock(t.Dir); err != nil {
			return nil, err
		}
		lock, err := fsx.LockFileIn(ctx, dir, lockName)
		if err != nil {
			return nil, err
		}
		defer lock.Unlock()
		if sel, err := selectIn(dir, t.Dir); err == nil {
			existing = sel
		}
	} else if sel, err := triad.SelectDir(t.Dir); err == nil {
		existing = sel
	}
	if res.Files, err = writeDocs(dir, t, c, docs, existing); err != nil {
		return nil, err
	}
	res.Roster, err = UpdateRoster(ctx, root, RosterRow{Title: c.Title, Slug: c.Slug, Summary: c.rosterSummary(), AgentsRoot: agentsRoot}, c.DryRun)
	return res, err
}

// writeDocs writes through dir (t.Dir, locked) the document of each kind
// that has none there yet, or only says what it would write for a dry run;
// a kind that has one is reported as it is.
func writeDocs(dir *os.Root, t Target, c Commission, docs map[triad.DocKind]*triad.Value, existing triad.Selection) ([]CommissionFile, error) {
	var out []CommissionFile
	tag := filepath.Base(t.Root)
	for _, k := range triad.Kinds {
		f := CommissionFile{Kind: string(k), State: "would create"}
		if name, ok := existing.Files[k]; ok {
			f.File, f.State = filepath.Join(t.Dir, name), "exists"
			out = append(out, f)
			continue
		}
		f.File = filepath.Join(t.Dir, c.Slug+"@"+tag+"."+string(k)+".triad.json")
		f.Content = string(triad.Encode(docs[k], triad.EncodeOptions{}))
		if !c.DryRun {
			if err := checkFile(t.Dir, f.File); err != nil {
				return nil, err
			}
			if err := fsx.WriteFileAtomicIn(dir, filepath.Base(f.File), []byte(f.Content), 0o644); err != nil {
				return nil, err
			}
			f.State = "created"
		}
		out = append(out, f)
	}
	return out, nil
}

// rosterSummary is the roster row's mission line: Summary, else Role,
// else Title.
func (c Commission) rosterSummary() string {
	switch {
	case c.Summary != "":
		return c.Summary
	case c.Role != "":
		return c.Role
	}
	return c.Title
}

// checkRoster refuses a roster (<root>/AGENTS.md) that [UpdateRoster]
// would refuse: one leading outside root, or not a regular file.
func checkRoster(root string) error {
	path := filepath.Join(root, "AGENTS.md")
	if err := checkFile(root, path); err != nil {
		return fmt.Errorf("roster: %w; nothing created", err)
	}
	if _, err := os.Lstat(path); err != nil {
		return nil
	}
	f, _, err := fsx.OpenRegular(path)
	if err != nil {
		return fmt.Errorf("roster: %w; nothing created", err)
	}
	return f.Close()
}

// scaffold builds the three documents of a new agent.
func scaffold(opts Options, c Commission, t Target, tmpl map[triad.DocKind]*triad.Value, now time.Time) (map[triad.DocKind]*triad.Value, error) {
	stamp := triad.NewString(now.Format(time.RFC3339))
	identity := func(k triad.DocKind) *triad.Value {
		doc := tmpl[k]
		if doc == nil {
			doc = triad.NewObject()
		} else {
			doc = doc.Clone()
			doc.Delete("$schemaVersion")
			doc.Delete("inherits")
		}
		doc.Set("schemaVersion", triad.NewString(currentSchema))
		doc.Set("slug", triad.NewString(c.Slug))
		doc.Set("title", triad.NewString(c.Title))
		doc.Set("updated", stamp)
		return doc
	}
	agent := identity(triad.Agent)
	if c.Role != "" || agent.Get("role") == nil {
		role := c.Role
		if role == "" {
			role = c.Slug
		}
		agent.Set("role", triad.NewString(role))
	}
	agent.Set("status", triad.NewString("active"))
	if inh := rootDirectives(t); inh != "" {
		agent.Set("inherits", triad.NewArray(triad.NewString(inh)))
	}
	if c.Signature != "" {
		ext := agent.Get("extensions")
		if ext == nil || ext.Kind != triad.Object {
			ext = triad.NewObject()
		}
		ext.Set("journalSignature", triad.NewString(c.Signature))
		agent.Set("extensions", ext)
	}
	agenda := identity(triad.Agenda)
	agenda.Set("status", triad.NewString("active"))
	for _, key := range []string{"milestones", "backlog"} {
		if agenda.Get(key) == nil {
			agenda.Set(key, stringArray(nil))
		}
	}
	agency := newAgencyDoc(c.Slug, now)
	sig := c.Signature
	if sig == "" {
		sig = "-" + c.Slug
	}
	entry, err := buildLogEntry(LogEntry{Entry: Entry{Slug: c.Slug, Kind: "commission",
		Title: "Commissioned — " + c.Title, Note: "Commissioned " + c.Slug + " as " + c.Title + ".",
		Tags: []string{"commission", "routing"}}}, sig, t.Source, now)
	if err != nil {
		return nil, err
	}
	agency.Get("entries").Items = []*triad.Value{entry}
	return map[triad.DocKind]*triad.Value{triad.Agent: agent, triad.Agenda: agenda, triad.Agency: agency}, nil
}

// rootDirectives is the inherits path (relative to the new context
// directory) of the workspace's root directives document, or "" when there
// is none, so a commissioned agent passes doctor's root check.
func rootDirectives(t Target) string {
	if t.Workspace == "" {
		return ""
	}
	rootDir := filepath.Join(t.Workspace, ".clia", "agents", "root")
	sel, err := triad.SelectDir(rootDir)
	if err != nil {
		return ""
	}
	name, ok := sel.Files[triad.Agent]
	if !ok {
		for _, k := range triad.Kinds {
			if n, found := sel.Files[k]; found {
				name, ok = n, true
				break
			}
		}
	}
	if !ok {
		return ""
	}
	rel, err := filepath.Rel(t.Dir, filepath.Join(rootDir, name))
	if err != nil {
		return ""
	}
	rel = filepath.ToSlash(rel)
	if !strings.HasPrefix(rel, "../") {
		rel = "./" + rel
	}
	return rel
}

// loadTemplate reads the agent and agenda documents of a template: a
// directory (relative to the path), else an agent slug's most local
// context.
func loadTemplate(opts agents.Options, from string) (map[triad.DocKind]*triad.Value, error) {
	if from == "" {
		return nil, nil
	}
	dir := fsx.Abs(opts.Path, from)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if agents.ValidateSlug(from) != nil {
			return nil, fmt.Errorf("template %q: not a directory or an agent slug", from)
		}
		ch, err := agents.Resolve(opts, from)
		if err != nil {
			return nil, err
		}
		if ch.Empty() {
			return nil, fmt.Errorf("template %q: no directory and no agent of that slug at %s", from, opts.Path)
		}
		dir = ch.Contexts[len(ch.Contexts)-1].Dir
	}
	sel, err := triad.SelectDir(dir)
	if err != nil {
		return nil, fmt.Errorf("template %q: %w", from, err)
	}
	out := map[triad.DocKind]*triad.Value{}
	for _, k := range []triad.DocKind{triad.Agent, triad.Agenda} {
		name, ok := sel.Files[k]
		if !ok {
			continue
		}
		p := filepath.Join(dir, name)
		data, err := fsx.ReadRegular(p, agents.MaxDocumentBytes)
		if err != nil {
			return nil, err
		}
		doc, err := triad.Decode(p, data)
		if err != nil {
			return nil, fmt.Errorf("template: %w", err)
		}
		if doc.Kind != triad.Object {
			return nil, fmt.Errorf("template: %s: top-level value is not an object", p)
		}
		out[k] = doc
	}
	if len(out) == 0 {
		return nil, errors.New("template " + dir + ": no agent or agenda document")
	}
	return out, nil
}

// commissionSlug is the slug rule of the commission spec, compiled on first
// use: every lineage process would pay for it at start-up otherwise.
var commissionSlug = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
})

// currentSchema is the schemaVersion lineage writes: CLIA's
// TriadSchemaVersion.current.
const currentSchema = "0.4.0"
