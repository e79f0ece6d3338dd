package tokens

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/internal/fsx"
)

// CountFile is the persistent layer of a [Cache]: it keeps the token
// counts of the texts a compile counts — each instruction file's part,
// each profile field — in a file between processes, so that a command that compiles once does not load the
// tokenizer's vocabulary (tens of milliseconds) only to count files that
// did not change. A text is named by its encoding and SHA-256, never
// stored. The file is a cache: a missing, unreadable or damaged one only
// means counting again, and a count never depends on it.
type CountFile struct {
	path string

	mu    sync.Mutex
	known map[string]int
	added map[string]int
}

// maxCounts bounds the file: past it, a save keeps only the counts of the
// compile that saves.
const maxCounts = 4096

// maxCountFileBytes bounds what is read of the file.
const maxCountFileBytes = 1 << 20

type countFileData struct {
	Counts map[string]int `json:"counts"`
}

// OpenCountFile reads the counts kept at path (none when it is missing or
// not a valid count file).
func OpenCountFile(path string) *CountFile {
	return &CountFile{path: path, known: readCounts(path), added: map[string]int{}}
}

func readCounts(path string) map[string]int {
	data, err := fsx.ReadRegular(path, maxCountFileBytes)
	if err != nil {
		return map[string]int{}
	}
	return decodeCounts(data)
}

// decodeCounts parses a count file; anything but a valid one is empty.
func decodeCounts(data []byte) map[string]int {
	var d countFileData
	if err := json.Unmarshal(data, &d); err != nil || d.Counts == nil {
		return map[string]int{}
	}
	for k, n := range d.Counts {
		if n < 0 || len(k) > 128 {
			return map[string]int{}
		}
	}
	return d.Counts
}

func countKey(encoding, text string) string {
	sum := sha256.Sum256([]byte(text))
	return encoding + " " + hex.EncodeToString(sum[:])
}

func (f *CountFile) lookup(key string) (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n, ok := f.added[key]; ok {
		return n, true
	}
	n, ok := f.known[key]
	return n, ok
}

func (f *CountFile) remember(key string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.known[key]; !ok {
		f.added[key] = n
	}
}

// Save writes the counts learnt since the file was opened, merged under a
// lock with what other processes saved meanwhile, and replaces the file
// atomically; nothing learnt, nothing written.
func (f *CountFile) Save(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.added) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return err
	}
	lock, err := fsx.LockFile(ctx, f.path+".lock")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	merged := readCounts(f.path)
	if len(merged)+len(f.added) > maxCounts {
		merged = map[string]int{}
	}
	for k, n := range f.added {
		merged[k] = n
	}
	data, err := json.Marshal(countFileData{Counts: merged}, json.Deterministic(true))
	if err != nil {
		return err
	}
	if err := fsx.WriteFileAtomic(f.path, data, 0o644); err != nil && !errors.Is(err, fs.ErrPermission) {
		return err
	}
	for k, n := range f.added {
		f.known[k] = n
	}
	clear(f.added)
	return nil
}

// CountKept is c.Count(counter, text), and when file is not nil the count
// kept in file as well: a warm compile (an MCP server answering every
// turn) does not re-tokenize texts that did not change, and a one-shot run
// does not load the tokenizer for them. What file lacks is counted,
// remembered in c, and added to file for its Save.
func (c *Cache) CountKept(counter Counter, file *CountFile, text string) int {
	if n, ok := c.Lookup(counter.Encoding(), text); ok {
		return n
	}
	var key string
	n, ok := 0, false
	if file != nil {
		key = countKey(counter.Encoding(), text)
		n, ok = file.lookup(key)
	}
	if !ok {
		n = counter.Count(text)
		if file != nil {
			file.remember(key, n)
		}
	}
	c.Remember(counter.Encoding(), text, n)
	return n
}
