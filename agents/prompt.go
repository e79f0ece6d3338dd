package agents

import (
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// MaxPromptTextBytes caps a persona or system-instructions file read into a
// prompt.
const MaxPromptTextBytes = 1 << 20

// PromptText is the text of a Markdown file a merged agent document names
// for its prompt, with where it came from: persona.profilePath (the
// persona) and systemInstructions.compactPath (or, without one,
// .fullPath), as CLIA's mirrors and `ask` read them.
type PromptText struct {
	// Name is "persona" or "systemInstructions".
	Name string `json:"name"`
	// Pointer is the merged field naming the file ("/persona/profilePath").
	Pointer string `json:"pointer"`
	// DeclaredIn is the triad document that set that field.
	DeclaredIn string `json:"declaredIn"`
	// File is the file read, Text its content without surrounding blank
	// space.
	File string `json:"file"`
	Text string `json:"text"`
}

// PromptTexts reads the persona and system-instructions files of a merged
// agent profile. A path is resolved like an inherits target against the
// document that set it ("./", "../" against its directory, else against
// its repository root); a file outside the workspace (unless outside
// inherits are allowed), missing, not a regular file, over
// [MaxPromptTextBytes] or blank is left out with a warning naming the
// document and the field.
func (p *Profile) PromptTexts() ([]PromptText, []string) {
	var out []PromptText
	var warnings []string
	for _, r := range []struct{ obj, key, alt string }{
		{"persona", "profilePath", ""},
		{"systemInstructions", "compactPath", "fullPath"},
	} {
		key := r.key
		v := p.Merged.Get(r.obj).Get(key)
		if (v == nil || v.Kind != triad.String || strings.TrimSpace(v.Text) == "") && r.alt != "" {
			key = r.alt
			v = p.Merged.Get(r.obj).Get(key)
		}
		if v == nil || v.Kind != triad.String || strings.TrimSpace(v.Text) == "" {
			continue
		}
		ptr := "/" + r.obj + "/" + key
		from := p.Provenance[ptr]
		path, ok := ResolveInherit(from, v.Text)
		if !ok || from == "" {
			continue
		}
		text, problem := p.readPromptText(path)
		if problem != "" {
			warnings = append(warnings, from+": "+r.obj+"."+key+" "+strconv.Quote(v.Text)+": "+problem+"; not in the prompt")
			continue
		}
		out = append(out, PromptText{Name: r.obj, Pointer: ptr, DeclaredIn: from, File: path, Text: text})
	}
	return out, warnings
}

func (p *Profile) readPromptText(path string) (string, string) {
	if p.Chain != nil && p.Chain.r != nil {
		p.Chain.r.opts.Trail.Note(path) // a warm compile sees the file change
	}
	if problem := inheritProblem(path); problem != "" {
		return "", problem
	}
	var opts Options
	ws := filepath.Dir(path)
	if p.Chain != nil && p.Chain.r != nil {
		opts = p.Chain.r.opts
		ws = realPath(workspaceOrSelf(p.Chain.r.p))
	}
	if real := realPath(path); !opts.AllowOutsideInherits && !fsx.Contains(ws, real) {
		return "", real + " is outside the workspace " + ws + " (--allow-outside-inherits lifts this)"
	}
	var data []byte
	var err error
	if opts.Open != nil {
		f, _, oerr := opts.Open(path)
		if oerr != nil {
			return "", oerr.Error()
		}
		defer f.Close()
		data, err = io.ReadAll(io.LimitReader(f, MaxPromptTextBytes+1))
		if err == nil && len(data) > MaxPromptTextBytes {
			err = fsx.ErrTooLarge
		}
	} else {
		data, err = fsx.ReadRegular(path, MaxPromptTextBytes)
	}
	if err != nil {
		return "", err.Error()
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return "", path + " is blank"
	}
	return text, ""
}
