package mcpserver

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/agentlineage/lineage/instructions"
)

// watcher polls the AGENTS.md files the server has loaded and calls
// changed when one of them is modified, replaced or removed. It only
// stats files (never reads them) and only while someone is subscribed.
type watcher struct {
	interval time.Duration
	files    func() []instructions.StateFile
	changed  func(ctx context.Context)

	mu     sync.Mutex
	active int
	wake   chan struct{}
	seen   map[string]fileVersion
}

type fileVersion struct {
	mtimeNs int64
	size    int64
	exists  bool
}

func newWatcher(interval time.Duration, files func() []instructions.StateFile, changed func(context.Context)) *watcher {
	return &watcher{interval: interval, files: files, changed: changed, wake: make(chan struct{}, 1), seen: map[string]fileVersion{}}
}

// subscribe and unsubscribe count the subscriptions the poll serves.
func (w *watcher) subscribe() {
	w.mu.Lock()
	w.active++
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *watcher) unsubscribe() {
	w.mu.Lock()
	if w.active > 0 {
		w.active--
	}
	w.mu.Unlock()
}

func (w *watcher) isActive() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.active > 0
}

// run polls until ctx is done.
func (w *watcher) run(ctx context.Context) {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-t.C:
		}
		if w.isActive() && w.poll() {
			w.changed(ctx)
		}
	}
}

// poll reports whether a watched file differs from the version last seen
// (the version the session loaded, for a file seen for the first time).
func (w *watcher) poll() bool {
	files := w.files()
	w.mu.Lock()
	defer w.mu.Unlock()
	changed := false
	current := make(map[string]bool, len(files))
	for _, f := range files {
		current[f.Path] = true
		last, ok := w.seen[f.Path]
		if !ok {
			last = fileVersion{mtimeNs: f.MtimeNs, size: f.SizeBytes, exists: true}
		}
		now := statVersion(f.Path)
		if now != last {
			changed = true
		}
		w.seen[f.Path] = now
	}
	for p := range w.seen {
		if !current[p] {
			delete(w.seen, p)
		}
	}
	return changed
}

func statVersion(path string) fileVersion {
	fi, err := os.Stat(path)
	if err != nil {
		return fileVersion{}
	}
	return fileVersion{mtimeNs: fi.ModTime().UnixNano(), size: fi.Size(), exists: true}
}
