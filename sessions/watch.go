package sessions

import (
	"context"
	"errors"
	"os"
	"time"
)

// A Watcher catches up the sessions no hook recorded (a harness run without
// `hook install --record`, a hook that failed): each [Watcher.Round] lists
// the transcripts, hands the importer only the files whose size or
// modification time changed since the round before, and the importer reads
// only what each gained (its cursor). A round over unchanged files reads no
// file and writes nothing.
//
// A Claude Code subagent's file is read with its parent's (a related
// file), and a round counts it in its parent's stamp: a subagent that is
// still working (its parent's file unchanged until it hands back) has its
// records imported in the round after they are written.
type Watcher struct {
	Importer *Importer
	// List lists the transcripts to watch (the harnesses' folders, as
	// [Discover] finds them).
	List func() ([]Source, error)
	// seen is each file's stamp when a round last imported it.
	seen map[string]stamp
}

type stamp struct {
	size int64
	mod  time.Time
	// subagents sums a Claude session's subagent files (see
	// claudeSubagents): how many, their sizes, the newest modification.
	subagents, subSize int64
	subMod             time.Time
}

// stampOf is the stamp of src's file; ok is false when it is gone.
func stampOf(src Source) (stamp, bool) {
	st, err := os.Stat(src.Path)
	if err != nil {
		return stamp{}, false
	}
	s := stamp{size: st.Size(), mod: st.ModTime()}
	if src.Harness == Claude {
		for _, sub := range claudeSubagents(src.Path) {
			if st, err := os.Stat(sub.Path); err == nil {
				s.subagents++
				s.subSize += st.Size()
				if st.ModTime().After(s.subMod) {
					s.subMod = st.ModTime()
				}
			}
		}
	}
	return s, true
}

// Failed is a transcript a round could not import: the error names the
// file and line. The file is tried again once it changes.
type Failed struct {
	Path string
	Err  error
}

// Round imports what changed since the last round. A file that fails is
// imported alone and reported in failed, so one transcript lineage cannot
// read never holds back the others; err is for what stops every file (the
// list, the store, a cancelled ctx).
func (w *Watcher) Round(ctx context.Context) (rep Report, failed []Failed, err error) {
	srcs, err := w.List()
	if err != nil {
		return Report{}, nil, err
	}
	if w.seen == nil {
		w.seen = map[string]stamp{}
	}
	now := map[string]stamp{}
	var changed []Source
	for _, s := range srcs {
		st, ok := stampOf(s)
		if !ok {
			continue // gone since the list: the next round lists it no more
		}
		now[s.Path] = st
		if old, ok := w.seen[s.Path]; !ok || old != now[s.Path] {
			changed = append(changed, s)
		}
	}
	for p := range w.seen {
		if _, ok := now[p]; !ok {
			delete(w.seen, p)
		}
	}
	if len(changed) == 0 {
		return Report{}, nil, nil
	}
	rep, err = w.Importer.Import(ctx, changed)
	if err != nil {
		if ctx.Err() != nil || !isFileError(err) {
			return Report{}, nil, err
		}
		rep, failed, err = w.oneByOne(ctx, changed)
		if err != nil {
			return rep, failed, err
		}
	}
	for _, s := range changed {
		w.seen[s.Path] = now[s.Path]
	}
	return rep, failed, nil
}

// oneByOne imports each file alone (origins first, as listed), so the
// files that can be read are.
func (w *Watcher) oneByOne(ctx context.Context, srcs []Source) (Report, []Failed, error) {
	var rep Report
	var failed []Failed
	for _, s := range srcs {
		r, err := w.Importer.Import(ctx, []Source{s})
		if err != nil {
			if ctx.Err() != nil || !isFileError(err) {
				return rep, failed, err
			}
			failed = append(failed, Failed{Path: s.Path, Err: err})
			continue
		}
		for _, sr := range r.Sessions {
			rep.add(sr)
		}
	}
	return rep, failed, nil
}

// isFileError says err is about one transcript (a line lineage cannot
// read, a record type it has not classified, a file it cannot open), not
// about the store.
func isFileError(err error) bool {
	var le *LineError
	var ue *UnclassifiedError
	var pe *os.PathError
	return errors.As(err, &le) || errors.As(err, &ue) || errors.As(err, &pe)
}

// Watch runs rounds every interval until ctx is cancelled, calling each
// after every round that imported or failed something. It returns nil when
// ctx is cancelled between rounds (a stop, not a failure), else the error
// that stopped a round.
func (w *Watcher) Watch(ctx context.Context, interval time.Duration, each func(Report, []Failed)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		rep, failed, err := w.Round(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if len(rep.Sessions) > 0 || len(failed) > 0 {
			each(rep, failed)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
