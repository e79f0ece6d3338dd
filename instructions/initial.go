package instructions

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentlineage/lineage/internal/fsx"
)

// File is an AGENTS.md reported by the initial load or a resolve. Bodies
// are never part of it.
type File struct {
	Path      string `json:"path"`
	MtimeMs   int64  `json:"mtimeMs"`
	SizeBytes int64  `json:"sizeBytes"`
	// Reason is "new" or "updated" in a resolve result, empty otherwise.
	Reason string `json:"reason,omitzero"`
}

// ChainDir is one directory of a chain and what became of its file.
type ChainDir struct {
	Dir    string `json:"dir"`
	Status Status `json:"status"`
	// Path is the file that was found (or skipped) there, if any.
	Path      string `json:"path,omitzero"`
	Detail    string `json:"detail,omitzero"`
	MtimeMs   int64  `json:"mtimeMs,omitzero"`
	SizeBytes int64  `json:"sizeBytes,omitzero"`
	// ContentBytes is what the file adds to maxBytes: the UTF-8 bytes of its
	// content after trimming.
	ContentBytes int `json:"contentBytes,omitzero"`
}

// loadedFile is a file the chain loaded.
type loadedFile struct {
	dir     string
	path    string
	v       version
	id      fsx.FileID
	hasID   bool
	content string
}

type chain struct {
	dirs     []ChainDir
	loaded   []loadedFile
	warnings []string
}

// loadChain walks dirs in order and loads each directory's file under the
// caps. At the first file that would exceed a cap loading stops: that file
// and every later one get the cap's status and are not loaded.
func loadChain(fsys FS, dirs []string, cfg Config) chain {
	var c chain
	var stopped Status
	seen := map[fsx.FileID]string{}
	total := 0
	for _, dir := range dirs {
		d := findFile(fsys, dir, cfg.FileNames, nil)
		cd := ChainDir{Dir: dir, Status: d.status, Path: d.path, Detail: d.detail}
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
		default:
			raw, err := fsys.ReadFile(d.path)
			if err != nil {
				cd.Status, cd.Detail = StatusUnreadable, err.Error()
				break
			}
			content, warn := cleanContent(d.path, raw)
			cd.ContentBytes = len(content)
			if total+len(content) > cfg.Initial.MaxBytes {
				stopped, cd.Status = StatusMaxBytes, StatusMaxBytes
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
			c.loaded = append(c.loaded, loadedFile{dir: dir, path: d.path, v: v, id: id, hasID: hasID, content: content})
		}
		c.dirs = append(c.dirs, cd)
	}
	return c
}

// cleanContent trims trailing whitespace and replaces invalid UTF-8 with
// U+FFFD, returning a warning when it had to.
func cleanContent(path string, raw []byte) (content, warning string) {
	s := string(raw)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
		warning = fmt.Sprintf("%s: invalid UTF-8 replaced with U+FFFD", path)
	}
	return strings.TrimRightFunc(s, unicode.IsSpace), warning
}

// renderInitial renders the <agents_context scope="initial"> block, or ""
// when no loaded file has content.
func renderInitial(files []loadedFile) string {
	var blocks []string
	for _, f := range files {
		if f.content != "" {
			blocks = append(blocks, "Instructions from: "+f.path+"\n"+f.content)
		}
	}
	if len(blocks) == 0 {
		return ""
	}
	return "<agents_context scope=\"initial\">\n" + strings.Join(blocks, "\n\n") + "\n</agents_context>"
}
