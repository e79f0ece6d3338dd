package instructions

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
)

// Resumed is the result of [Resume].
type Resumed struct {
	// Text is the session.resume.diff reminder, "" when nothing differs.
	Text string
	// Session is the current session, to be saved in place of the old one.
	Session  *Session
	Warnings []string
}

// Resume compares a saved session with the current working directory,
// root, markers and initial chain. "Re-check" lists files of the current
// chain that are new or changed against the saved state; "No longer in
// scope" lists saved files that left the saved chain or no longer exist.
// "Re-check" also lists every other saved file (reported by a resolve)
// that still exists inside the current root and changed while the session
// was away. The new session knows the current chain plus the saved files
// outside the saved chain that still exist inside the current root (at
// their saved versions, so a later resolve still reports their changes;
// a changed one at its new version, as it was just re-presented).
func Resume(saved State, opts Options) Resumed {
	cur, in := Start(opts)
	savedChain := map[string]bool{}
	for _, d := range chainDirs(saved.Root, saved.Cwd) {
		savedChain[d] = true
	}
	savedFiles := map[string]StateFile{}
	for _, f := range saved.Files {
		savedFiles[f.Path] = f
	}
	current := map[string]bool{}
	var recheck []File
	for _, f := range in.Files {
		current[f.Path] = true
		old, ok := savedFiles[f.Path]
		if k := cur.known[f.Path]; !ok || old.MtimeNs != k.v.mtimeNs || old.SizeBytes != k.v.size {
			recheck = append(recheck, f)
		}
	}
	var gone []string
	for _, f := range saved.Files {
		if current[f.Path] {
			continue
		}
		d := statFile(cur.fsys, f.Path)
		if savedChain[filepath.Dir(f.Path)] || d.status != statusFound {
			gone = append(gone, f.Path)
			continue
		}
		if !fsx.Contains(cur.root.Dir, f.Path) {
			continue
		}
		if _, ok := cur.imports[f.Path]; !ok && len(f.Imports) > 0 {
			cur.imports[f.Path] = clone(f.Imports)
		}
		// A file the session had been told about (a resolve reported it)
		// that changed while the session was away is re-presented
		// (seed §9.6), and known from now on at its new version.
		if v := d.version(); v.mtimeNs != f.MtimeNs || v.size != f.SizeBytes {
			id, hasID := d.id()
			cur.register(f.Path, known{v: v, id: id, hasID: hasID})
			recheck = append(recheck, newFile(f.Path, v, ""))
			continue
		}
		cur.register(f.Path, known{v: version{mtimeNs: f.MtimeNs, size: f.SizeBytes}})
		cur.idsPending = true
	}
	slices.Sort(gone)
	same := saved.Cwd == cur.cwd && saved.Root == cur.root.Dir && slices.Equal(saved.Markers, cur.markers)
	r := Resumed{Session: cur, Warnings: in.Warnings}
	if same && len(recheck) == 0 && len(gone) == 0 {
		return r
	}
	var b strings.Builder
	b.WriteString("<system-reminder type=\"session.resume.diff\">\nSession resumed with context changes:\n")
	b.WriteString("- cwd: " + fsx.LineSafe(saved.Cwd) + " -> " + fsx.LineSafe(cur.cwd) + "\n")
	b.WriteString("- root: " + fsx.LineSafe(saved.Root) + " -> " + fsx.LineSafe(cur.root.Dir) + "\n")
	b.WriteString("- markers: " + MarkersJSON(saved.Markers) + " -> " + MarkersJSON(cur.markers) + "\n")
	b.WriteString("Re-check AGENTS.md for current scope:\n")
	for _, f := range recheck {
		writeFileLine(&b, f)
	}
	if len(gone) > 0 {
		b.WriteString("No longer in scope:\n")
		for _, p := range gone {
			b.WriteString("- " + fsx.LineSafe(p) + "\n")
		}
	}
	b.WriteString("</system-reminder>")
	r.Text = b.String()
	return r
}
