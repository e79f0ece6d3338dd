package agents

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
	"github.com/agentlineage/lineage/triad/triadschema"
)

// kindName names a JSON kind in a finding.
func kindName(k triad.Kind) string {
	switch k {
	case triad.Null:
		return "null"
	case triad.Bool:
		return "a boolean"
	case triad.Number:
		return "a number"
	case triad.String:
		return "a string"
	case triad.Object:
		return "an object"
	}
	return "an array"
}

// documentFindings are the warnings about one document on its own: a key
// that occurs twice in one object (lineage merges the occurrences in order;
// CLIA keeps only the last, so the file means different things to each),
// and an inherits directive that is not an array of strings (it is
// ignored).
func documentFindings(file string, doc *triad.Value, rep *Report) {
	duplicateKeys(file, doc, "", rep)
	inheritsShape(file, doc.Get("inherits"), "inherits", rep)
	if ext := doc.Get("extensions"); ext != nil && ext.Kind == triad.Object {
		inheritsShape(file, ext.Get("inherits"), "extensions.inherits", rep)
	}
}

func duplicateKeys(file string, v *triad.Value, ptr string, rep *Report) {
	switch v.Kind {
	case triad.Object:
		seen := make(map[string]bool, len(v.Members))
		for _, m := range v.Members {
			at := ptr + "/" + strings.ReplaceAll(strings.ReplaceAll(m.Key, "~", "~0"), "/", "~1")
			if seen[m.Key] {
				rep.warnf("%s: duplicate key %q at %s; lineage merges the occurrences in order (a scalar: the last wins; arrays and objects: combined), CLIA reads only the last", file, m.Key, at)
			}
			seen[m.Key] = true
			duplicateKeys(file, m.Value, at, rep)
		}
	case triad.Array:
		for i, it := range v.Items {
			duplicateKeys(file, it, ptr+"/"+strconv.Itoa(i), rep)
		}
	}
}

func inheritsShape(file string, v *triad.Value, name string, rep *Report) {
	if v == nil || v.Kind == triad.Null {
		return
	}
	if v.Kind != triad.Array {
		rep.warnf("%s: %s is %s, not an array of strings; ignored", file, name, kindName(v.Kind))
		return
	}
	for i, it := range v.Items {
		if it.Kind != triad.String {
			rep.warnf("%s: %s[%d] is %s, not a string; ignored", file, name, i, kindName(it.Kind))
		}
	}
}

// guardrailFindings reports guardrails repeated across the layers of an
// agent's merge: a repeat of an inherited guardrail adds nothing (the union
// keeps one), and one that differs only in case or spacing is kept twice.
func guardrailFindings(layers []triad.Layer, rep *Report) {
	type first struct{ file, text string }
	exact := map[string]string{}
	loose := map[string]first{}
	for _, l := range layers {
		g := l.Doc.Get("guardrails")
		if g == nil || g.Kind != triad.Array {
			continue
		}
		for _, it := range g.Items {
			if it.Kind != triad.String || strings.TrimSpace(it.Text) == "" {
				continue
			}
			if f, ok := exact[it.Text]; ok {
				if f != l.File {
					rep.warnf("%s: guardrail %q repeats the one of %s", l.File, it.Text, f)
				}
				continue
			}
			exact[it.Text] = l.File
			key := strings.ToLower(strings.Join(strings.Fields(it.Text), " "))
			if f, ok := loose[key]; ok {
				rep.warnf("%s: guardrail %q differs from %q of %s only in case or spacing; both are kept", l.File, it.Text, f.text, f.file)
				continue
			}
			loose[key] = first{l.File, it.Text}
		}
	}
}

// fileRefFindings reports the files a merged agent names that do not
// exist: persona.profilePath and systemInstructions.compactPath/fullPath.
// A path is resolved like an inherits target against the document it came
// from: "./" and "../" against that document's directory, anything else
// against its repository root (as CLIA's doctor does). URLs are not checked.
func fileRefFindings(p *Profile, rep *Report) {
	refs := []struct{ obj, key string }{
		{"persona", "profilePath"},
		{"systemInstructions", "compactPath"},
		{"systemInstructions", "fullPath"},
	}
	for _, r := range refs {
		v := p.Merged.Get(r.obj).Get(r.key)
		if v == nil || v.Kind != triad.String || strings.TrimSpace(v.Text) == "" {
			continue
		}
		from := p.Provenance["/"+r.obj+"/"+r.key]
		if from == "" {
			from = p.Provenance["/"+r.obj]
		}
		path, ok := ResolveInherit(from, v.Text)
		if !ok || from == "" {
			continue
		}
		if problem := inheritProblem(path); problem != "" {
			rep.warnf("%s: %s.%s %q: %s", from, r.obj, r.key, v.Text, problem)
		}
	}
}

// rosterCell returns the path of a roster row's last cell,
// `<agents root>/<slug>/`, without the slashes around it; ok is false for
// any other line.
func rosterCell(line string) (cell string, ok bool) {
	l := strings.TrimSpace(line)
	if !strings.HasPrefix(l, "|") || !strings.HasSuffix(l, "|") {
		return "", false
	}
	l = strings.TrimSpace(strings.TrimSuffix(l, "|"))
	if !strings.HasSuffix(l, "/`") {
		return "", false
	}
	l = strings.TrimSuffix(l, "/`")
	i := strings.LastIndexByte(l, '`')
	if i < 0 || strings.ContainsAny(l[i+1:], "|") || !strings.Contains(l[i+1:], "/") {
		return "", false
	}
	return l[i+1:], true
}

// rosterFindings checks <repoRoot>/AGENTS.md when it holds a roster table
// (rows ending in a path cell, as CLIA's roster spec writes them): the agent
// of slug, whose context is in agentsRoot, needs a row, and every row needs
// an agent directory.
func rosterFindings(repoRoot, slug, agentsRoot string, rep *Report) {
	path := filepath.Join(repoRoot, "AGENTS.md")
	data, err := fsx.ReadRegular(path, MaxDocumentBytes)
	if err != nil {
		return
	}
	want := filepath.ToSlash(agentsRoot) + "/" + slug
	rows, found := 0, false
	for i, line := range strings.Split(string(data), "\n") {
		cell, ok := rosterCell(line)
		if !ok {
			continue
		}
		rows++
		if cell == want {
			found = true
		}
		dir := fsx.Abs(repoRoot, filepath.FromSlash(cell))
		if !fsx.Contains(repoRoot, dir) || !isDir(dir) {
			rep.warnf("%s:%d: roster row for %q names %s/, which is not an agent directory", path, i+1, filepath.Base(dir), cell)
		}
	}
	if rows > 0 && !found {
		rep.warnf("%s: no roster row for %s (`%s/`)", path, slug, want)
	}
}

// siblingFindings reports layers whose content is read from a sibling
// submodule of p — through a symlinked agent directory or an inherits
// path — which the chain itself excludes. A root a rootChain injects is
// read on purpose and not reported.
func siblingFindings(p string, ch *Chain, layers []triad.Layer, rep *Report) {
	_, excluded, _ := DefaultDomains(p)
	if len(excluded) == 0 {
		return
	}
	injected := map[string]bool{}
	for _, c := range ch.Contexts {
		if strings.HasPrefix(c.Reason, ReasonInjected) {
			injected[realPath(c.Dir)] = true
		}
	}
	for _, l := range layers {
		real := realPath(l.File)
		if injected[filepath.Dir(real)] {
			continue
		}
		for _, e := range excluded {
			if sib := realPath(e.Dir); fsx.Contains(sib, real) {
				if from, target, ok := referrer(layers, l.File); ok {
					rep.warnf("%s: inherits %q reads from the sibling submodule %s (%s)", from, target, e.Dir, real)
				} else {
					rep.warnf("%s: read from the sibling submodule %s through a symlinked agent directory (%s)", l.File, e.Dir, real)
				}
				break
			}
		}
	}
}

// referrer finds the layer whose inherits name file, and that target.
func referrer(layers []triad.Layer, file string) (from, target string, ok bool) {
	for _, l := range layers {
		for _, t := range Inherits(l.Doc) {
			if p, isPath := ResolveInherit(l.File, t); isPath && p == file {
				return l.File, t, true
			}
		}
	}
	return "", "", false
}

// schemaFindings validates each layer's document against CLIA's published
// schema of kind; every violation is a warning naming the file, the line
// and the JSON Pointer of the value it is about (none for the document).
func schemaFindings(kind triad.DocKind, layers []triad.Layer, docs *docCache, rep *Report) {
	for _, l := range layers {
		vs, err := triadschema.Validate(kind, l.Doc)
		if err != nil {
			rep.errorf("schema %s: %v", kind, err)
			return
		}
		for _, v := range vs {
			at := ""
			if v.Pointer != "" {
				at = " at " + v.Pointer
			}
			rep.warnf("%s: does not conform to CLIA's %s schema%s: %s", docs.at(l.File, v.Pointer), kind, at, v.Message)
		}
	}
}
