package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/agentlineage/lineage/hooks"
	"github.com/agentlineage/lineage/internal/cli/clienv"
	"github.com/agentlineage/lineage/sessions"
)

// recordTimeout bounds one recording: what a turn added is read in
// milliseconds; a first recording of a long session that does not finish
// keeps what it stored, and the next event goes on from there.
const recordTimeout = 20 * time.Second

// recordsOn reports whether a hook installed with --record records at ev:
// the events that end a turn, and a session's start (a resumed or forked
// session's file catches up).
func recordsOn(ev hooks.Event) bool {
	return ev.Record || ev.Kind == hooks.Start || ev.Kind == hooks.Resume
}

// record appends what is new in the event's transcripts to the sessions
// store. It never changes the harness's answer: a failure is one line on
// stderr, and the next event catches up (the importer's cursor and the
// records' keys make a repeated read add nothing twice).
func record(ctx context.Context, env *clienv.Env, h *hooks.Harness, ev hooks.Event) {
	if len(ev.Transcripts) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, recordTimeout)
	defer cancel()
	if err := recordTranscripts(ctx, env, h, ev.Transcripts); err != nil {
		fmt.Fprintf(env.Stderr, "lineage: hook: recording the session: %v (the next event catches up)\n", err)
	}
}

func recordTranscripts(ctx context.Context, env *clienv.Env, h *hooks.Harness, paths []string) error {
	var srcs []sessions.Source
	for _, p := range paths {
		// A harness may name its transcript before it writes the file.
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		srcs = append(srcs, sessions.Source{Harness: sessions.Harness(h.Name), Path: p})
	}
	if len(srcs) == 0 {
		return nil
	}
	st, err := clienv.OpenSessions(ctx, env, "", true)
	if err != nil {
		return err
	}
	defer st.Close()
	_, err = (&sessions.Importer{Repo: st.Repo, LockPath: st.Lock}).Import(ctx, srcs)
	return err
}
