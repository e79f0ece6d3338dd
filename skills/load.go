package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentlineage/lineage/internal/fsx"
)

// MaxListedFiles bounds the files a load lists beside the body.
const MaxListedFiles = 100

// ErrNotFound is returned (wrapped) for a name the catalog does not have.
var ErrNotFound = errors.New("no such skill")

// Loaded is a skill's body or one of its files, read now.
type Loaded struct {
	Skill Skill `json:"skill"`
	// Resource is the file read, relative to the skill folder ("" for the
	// body).
	Resource string `json:"resource,omitzero"`
	// Content is the body (the SKILL.md after its front matter, trimmed)
	// or the resource's text.
	Content string `json:"content"`
	// Files are the skill folder's other files (slash-separated, sorted),
	// listed with the body only; FilesTruncated when there were more than
	// [MaxListedFiles].
	Files          []string `json:"files,omitzero"`
	FilesTruncated bool     `json:"filesTruncated,omitzero"`
	// Digest is the SHA-256 of the file read: what a [Tracker] compares.
	Digest string `json:"digest"`
}

// Load reads the body of the catalog's skill called name, through an
// os.Root opened at the skill's folder.
func (c *Catalog) Load(name string) (*Loaded, error) {
	return c.load(name, "")
}

// Resource reads the file rel (slash-separated, relative to the skill's
// folder) of the skill called name. It cannot leave the skill's folder:
// "..", an absolute path or a symbolic link out is an error, as is
// anything but a regular file.
func (c *Catalog) Resource(name, rel string) (*Loaded, error) {
	if rel == "" {
		return nil, errors.New("resource: empty path")
	}
	return c.load(name, rel)
}

func (c *Catalog) load(name, rel string) (*Loaded, error) {
	s, ok := c.Find(name)
	if !ok {
		return nil, fmt.Errorf("%w %q (skills list shows the names)", ErrNotFound, name)
	}
	if s.base == nil || s.base.root == nil {
		return nil, errors.New("skills: the catalog is closed")
	}
	r, err := s.base.root.OpenRoot(s.rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", fsx.LineSafe(s.Dir), describe(err, s.base.dir))
	}
	defer r.Close()
	if rel == "" {
		data, _, err := fsx.ReadRegularIn(r, SkillFile, c.maxBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", fsx.LineSafe(s.Path), describe(err, s.Dir))
		}
		d, probs := parse(s.Path, path.Base(filepath.ToSlash(s.Dir)), data)
		if d == nil {
			if len(probs) > 0 {
				return nil, errors.New(probs[0].String())
			}
			return nil, fmt.Errorf("%s: cannot be read as a skill", fsx.LineSafe(s.Path))
		}
		l := &Loaded{Skill: s, Content: d.body, Digest: digest(data)}
		l.Files, l.FilesTruncated = listFiles(r)
		return l, nil
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) {
		return nil, fmt.Errorf("resource %s: must be relative to the skill folder", fsx.LineSafe(rel))
	}
	clean := path.Clean(filepath.ToSlash(rel))
	data, _, err := fsx.ReadRegularIn(r, clean, c.maxBytes)
	if err != nil {
		msg := describe(err, s.Dir)
		if strings.Contains(err.Error(), "path escapes from parent") {
			msg = "outside the skill folder " + fsx.LineSafe(s.Dir)
		}
		return nil, fmt.Errorf("resource %s: %s", fsx.LineSafe(rel), msg)
	}
	return &Loaded{Skill: s, Resource: clean, Content: string(data), Digest: digest(data)}, nil
}

// listFiles lists the regular files under the skill folder (not SKILL.md),
// breadth by name, at most MaxListedFiles.
func listFiles(r interface{ FS() fs.FS }) ([]string, bool) {
	var out []string
	truncated := false
	_ = fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return fs.SkipDir
		}
		if !d.Type().IsRegular() || p == SkillFile {
			return nil
		}
		if len(out) == MaxListedFiles {
			truncated = true
			return fs.SkipAll
		}
		out = append(out, p)
		return nil
	})
	slices.Sort(out)
	return out, truncated
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Text is the load as the model reads it: the body inside a <skill> element
// naming the skill and its file, with the folder relative paths resolve
// against and its files; or one resource inside a <skill_resource> element.
func (l *Loaded) Text() string {
	var b strings.Builder
	if l.Resource != "" {
		fmt.Fprintf(&b, "<skill_resource skill=%q path=%q>\n%s\n</skill_resource>", l.Skill.Name, l.Resource, strings.TrimRight(l.Content, "\n"))
		return b.String()
	}
	fmt.Fprintf(&b, "<skill name=%q path=%q>\n%s\n</skill>\n", l.Skill.Name, l.Skill.Path, l.Content)
	fmt.Fprintf(&b, "Base directory: %s\nRelative paths in this skill resolve against it.", fsx.LineSafe(l.Skill.Dir))
	if len(l.Files) > 0 {
		b.WriteString("\nFiles:")
		for _, f := range l.Files {
			b.WriteString("\n- " + fsx.LineSafe(f))
		}
		if l.FilesTruncated {
			fmt.Fprintf(&b, "\n(only the first %d files are listed)", MaxListedFiles)
		}
	}
	return b.String()
}

// Tracker remembers which skill files a session was given, by digest, so
// the same unchanged file is not given twice. It is safe for concurrent use.
type Tracker struct {
	mu   sync.Mutex
	seen map[string]string // path (and resource) → digest
}

// Seen records l and reports whether the session already has this exact
// content (true: answer with [AlreadyLoaded] instead of the content). A
// changed file counts as new and replaces what was recorded.
func (t *Tracker) Seen(l *Loaded) bool {
	key := l.Skill.Path
	if l.Resource != "" {
		key = l.Skill.Dir + "\x00" + l.Resource
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seen == nil {
		t.seen = map[string]string{}
	}
	if t.seen[key] == l.Digest {
		return true
	}
	t.seen[key] = l.Digest
	return false
}

// AlreadyLoaded is the short answer to loading what the session already has.
func (l *Loaded) AlreadyLoaded() string {
	if l.Resource != "" {
		return fmt.Sprintf("Already loaded: %s of skill %q, unchanged since it was given in this session.", l.Resource, l.Skill.Name)
	}
	return fmt.Sprintf("Already loaded: skill %q (%s), unchanged since it was given in this session; follow it as given.", l.Skill.Name, fsx.LineSafe(l.Skill.Path))
}
