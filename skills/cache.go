package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlineage/lineage/internal/fsx"
)

// The metadata cache keeps, per SKILL.md path, what a listing needs (name,
// description, body tokens, warnings) with the (mtime ns, size) it was read
// at: counting tokens loads a 200k-word vocabulary (tens of milliseconds),
// which a listing of unchanged skills should not pay. Writers replace the
// file atomically, so two processes never see a torn file; the later one
// wins and the other's new entries are counted again next time.

// CacheFile is the metadata file in dir for the project whose root is
// rootDir: skills-<16 hex digits of the root's SHA-256>.json. One file per
// root keeps a listing's read in proportion to its own project, not to
// every skill the user has ever listed.
func CacheFile(dir, rootDir string) string {
	sum := sha256.Sum256([]byte(rootDir))
	return filepath.Join(dir, "skills-"+hex.EncodeToString(sum[:8])+".json")
}

const (
	cacheVersion    = 1
	maxCacheBytes   = 32 << 20
	maxCacheEntries = 20000
)

type cacheFile struct {
	Version int          `json:"version"`
	Entries []cacheEntry `json:"entries"`
}

type cacheEntry struct {
	Path        string    `json:"path"`
	MtimeNs     int64     `json:"mtimeNs"`
	Size        int64     `json:"size"`
	Encoding    string    `json:"encoding"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	BodyTokens  int       `json:"bodyTokens"`
	Warnings    []Problem `json:"warnings,omitzero"`
}

type metaCache struct {
	path    string
	list    []cacheEntry   // in file order, kept for a stable file
	entries map[string]int // path → index in list
	used    []bool         // by index in list: read or written this run
	dirty   bool
}

// loadCache reads the cache at p; a missing, unreadable or foreign file is
// an empty cache (it is only ever a shortcut).
func loadCache(p string) *metaCache {
	c := &metaCache{path: p}
	data, err := fsx.ReadRegular(p, maxCacheBytes)
	// An entry takes about 300 bytes: room for all of them up front
	// spares the decoder its doubling copies.
	f := cacheFile{Entries: make([]cacheEntry, 0, len(data)/256+1)}
	if err != nil || json.Unmarshal(data, &f) != nil || f.Version != cacheVersion {
		f.Entries = nil
	}
	c.list = f.Entries[:0]
	c.entries = make(map[string]int, len(f.Entries))
	for _, e := range f.Entries {
		if i, dup := c.entries[e.Path]; dup {
			c.list[i] = e // the later of two wins
			continue
		}
		c.entries[e.Path] = len(c.list)
		c.list = append(c.list, e)
	}
	c.used = make([]bool, len(c.list))
	return c
}

func (c *metaCache) get(p string, fi fs.FileInfo, encoding string) (cacheEntry, bool) {
	i, ok := c.entries[p]
	if !ok {
		return cacheEntry{}, false
	}
	if e := c.list[i]; e.MtimeNs == fi.ModTime().UnixNano() && e.Size == fi.Size() && e.Encoding == encoding {
		c.used[i] = true
		return e, true
	}
	return cacheEntry{}, false
}

func (c *metaCache) put(e cacheEntry) {
	i, ok := c.entries[e.Path]
	if ok {
		c.list[i] = e
	} else {
		i = len(c.list)
		c.entries[e.Path] = i
		c.list = append(c.list, e)
		c.used = append(c.used, false)
	}
	c.used[i] = true
	c.dirty = true
}

// save writes the cache if it changed, dropping entries this run did not
// use once it holds more than maxCacheEntries. Failing to write it is not
// an error of the listing.
func (c *metaCache) save() {
	if !c.dirty {
		return
	}
	f := cacheFile{Version: cacheVersion}
	for i, e := range c.list {
		if len(c.list) > maxCacheEntries && !c.used[i] {
			continue
		}
		f.Entries = append(f.Entries, e)
	}
	data, err := json.Marshal(f, jsontext.AllowInvalidUTF8(true), json.Deterministic(true))
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(c.path), 0o755) != nil {
		return
	}
	_ = fsx.WriteFileAtomic(c.path, data, 0o644)
}
