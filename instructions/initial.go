package instructions

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentlineage/lineage/internal/fsx"
)

// File is an AGENTS.md reported by the initial load or a resolve. Bodies
// are never part of it.
type File struct {
	Path string `json:"path"`
	// PathBytes is set only when Path is not valid UTF-8: JSON shows Path
	// with U+FFFD replacements, and PathBytes (base64) keeps the bytes.
	PathBytes []byte `json:"pathBytes,omitzero"`
	MtimeMs   int64  `json:"mtimeMs"`
	SizeBytes int64  `json:"sizeBytes"`
	// Reason is "new" or "updated" in a resolve result, empty otherwise.
	Reason string `json:"reason,omitzero"`
	// Tokens is the file's content in tokens, set by a load that counts
	// tokens (Options.Tokens); never by a resolve, which reads no bodies.
	Tokens int `json:"tokens,omitzero"`
}

func newFile(path string, v version, reason string) File {
	return File{Path: path, PathBytes: invalidBytes(path), MtimeMs: v.mtimeMs(), SizeBytes: v.size, Reason: reason}
}

// invalidBytes returns p's bytes when p is not valid UTF-8, else nil: JSON
// strings replace such bytes, so they travel beside the string.
func invalidBytes(p string) []byte {
	if utf8.ValidString(p) {
		return nil
	}
	return []byte(p)
}

// ChainDir is one directory of a chain and what became of its file.
type ChainDir struct {
	Dir    string `json:"dir"`
	Status Status `json:"status"`
	// Path is the file that was found (or skipped) there, if any.
	Path string `json:"path,omitzero"`
	// PathBytes: see [File].
	PathBytes []byte `json:"pathBytes,omitzero"`
	Detail    string `json:"detail,omitzero"`
	MtimeMs   int64  `json:"mtimeMs,omitzero"`
	SizeBytes int64  `json:"sizeBytes,omitzero"`
	// ContentBytes is what the file adds to maxBytes: the UTF-8 bytes of its
	// content after trimming.
	ContentBytes int `json:"contentBytes,omitzero"`
	// Tokens is the loaded content in tokens, when the load counted them.
	Tokens int `json:"tokens,omitzero"`
}

// loadedFile is a file the chain loaded.
type loadedFile struct {
	dir     string
	path    string
	v       version
	id      fsx.FileID
	hasID   bool
	content string
	tokens  int
}

type chain struct {
	dirs     []ChainDir
	loaded   []loadedFile
	warnings []string
}

// loadChain walks dirs in order and loads each directory's file under the
// caps. At the first file that would exceed a cap loading stops: that file
// and every later one get the cap's status and are not loaded.
func loadChain(fsys FS, dirs []string, cfg Config, counter TokenCounter) chain {
	var c chain
	var stopped Status
	seen := map[fsx.FileID]string{}
	total := 0
	for _, dir := range dirs {
		d := findFile(fsys, dir, cfg.FileNames, nil)
		cd := ChainDir{Dir: dir, Status: d.status, Path: d.path, PathBytes: invalidBytes(d.path), Detail: d.detail}
		if d.status != statusFound {
			c.dirs = append(c.dirs, cd)
			continue
		}
		v := d.version()
		cd.MtimeMs, cd.SizeBytes = v.mtimeMs(), v.size
		id, hasID := d.id()
		switch {
		case stopped != "":
			cd.Status = stopped
		case hasID && seen[id] != "":
			cd.Status, cd.Detail = StatusDuplicate, "same file as "+seen[id]
		case len(c.loaded)+1 > cfg.Initial.MaxFiles:
			stopped, cd.Status = StatusMaxFiles, StatusMaxFiles
			cd.Detail = fmt.Sprintf("initial.maxFiles %d reached", cfg.Initial.MaxFiles)
		default:
			fc, err := readContent(fsys, d.path, cfg.Initial.MaxBytes-total)
			if err != nil {
				cd.Status, cd.Detail = StatusUnreadable, err.Error()
				break
			}
			content, warn := fc.text, fc.warning
			if fc.known {
				cd.ContentBytes = len(content)
			}
			if !fc.fits {
				stopped, cd.Status = StatusMaxBytes, StatusMaxBytes
				cd.Detail = fmt.Sprintf("over the %d byte(s) left of initial.maxBytes %d", cfg.Initial.MaxBytes-total, cfg.Initial.MaxBytes)
				break
			}
			if warn != "" {
				c.warnings = append(c.warnings, warn)
			}
			total += len(content)
			cd.Status = StatusLoaded
			if content == "" {
				cd.Status = StatusEmpty
			}
			if hasID {
				seen[id] = d.path
			}
			lf := loadedFile{dir: dir, path: d.path, v: v, id: id, hasID: hasID, content: content}
			if counter != nil {
				lf.tokens = counter.Count(content)
				cd.Tokens = lf.tokens
			}
			c.loaded = append(c.loaded, lf)
		}
		c.dirs = append(c.dirs, cd)
	}
	if w := cutNotice(c.dirs); w != "" {
		c.warnings = append(c.warnings, w)
	}
	return c
}

// cutNotice says which file a cap stopped the load at, why, and how many
// later files that left out, so an oversized file never hides the rest
// silently. "" when no cap was reached.
func cutNotice(dirs []ChainDir) string {
	for i, d := range dirs {
		if d.Status != StatusMaxBytes && d.Status != StatusMaxFiles {
			continue
		}
		later := 0
		for _, e := range dirs[i+1:] {
			if e.Status == d.Status {
				later++
			}
		}
		return fmt.Sprintf("%s: not loaded (%s: %s); %d later file(s) of the chain left out too (see 'lineage instructions explain')",
			fsx.LineSafe(d.Path), d.Status, d.Detail, later)
	}
	return ""
}

// TextPart is a piece of an initial block: the block is its parts' Text
// joined with nothing between them. A file's part (Path set) is its
// "Instructions from:" line, its content and the separator after it; the
// parts without a path are the block's frame. Callers that weigh the block
// file by file (token counts per file) use them.
type TextPart struct {
	Path string
	Text string
}

// renderInitial renders the <agents_context scope="initial"> block, or ""
// when no loaded file has content, and the parts it is made of. Files
// preloaded names are left out.
func renderInitial(files []loadedFile, preloaded func(string) bool) (string, []TextPart) {
	var parts []TextPart
	for _, f := range files {
		if f.content != "" && (preloaded == nil || !preloaded(f.path)) {
			parts = append(parts, TextPart{Path: f.path, Text: "Instructions from: " + fsx.LineSafe(f.path) + "\n" + f.content + "\n\n"})
		}
	}
	if len(parts) == 0 {
		return "", nil
	}
	last := &parts[len(parts)-1]
	last.Text = strings.TrimSuffix(last.Text, "\n")
	parts = append([]TextPart{{Text: "<agents_context scope=\"initial\">\n"}}, parts...)
	parts = append(parts, TextPart{Text: "</agents_context>"})
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), parts
}
