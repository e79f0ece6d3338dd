package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// MaxAge is how long a session's state file is kept after its last write.
const MaxAge = 7 * 24 * time.Hour

// Options are what [Handle] depends on besides the event.
type Options struct {
	// Instructions configures the resolver; its Cwd is replaced by the
	// event's working directory.
	Instructions instructions.Options
	// SessionsDir holds one state file per harness session.
	SessionsDir string
	// Slug, when set, adds the agent's merged guardrails at session start.
	Slug string
	// Now is the clock that ages state files; nil means time.Now.
	Now func() time.Time
	// Env is the hook's environment: the harness's own configuration
	// variables and PATH, which say what the harness loads by itself.
	Env Env
	// View, when set, replaces the native view Handle works out (tests).
	View func(h *Harness, cwd string) Native
}

// Result is the answer to one event.
type Result struct {
	// Context is the text for the model, "" for none.
	Context string
	// Warnings are for the user (stderr), never for the model.
	Warnings []string
}

// Handle answers ev for harness h: it starts, resumes or updates the
// session's state under its lock and returns the context for the model.
func Handle(ctx context.Context, h *Harness, ev Event, opts Options) (Result, error) {
	if ev.Kind == Ignored {
		return Result{}, nil
	}
	opts.Instructions.Cwd = ev.Cwd
	path, err := AgentPath(opts.SessionsDir, h.Name, ev.SessionID, ev.AgentID)
	if err != nil {
		return Result{}, err
	}
	if err := os.MkdirAll(opts.SessionsDir, 0o700); err != nil {
		return Result{}, fmt.Errorf("sessions directory: %w", err)
	}
	var res Result
	start := func() *instructions.Session {
		var native Native
		if opts.View != nil {
			native = opts.View(h, ev.Cwd)
		} else {
			native = NativeView(h, ev.Cwd, opts.Env)
		}
		io := opts.Instructions
		io.Preloaded = func(p string) bool {
			if !native.Known {
				return true
			}
			_, cut := native.Cut(p)
			return cut || native.Loaded(p)
		}
		sess, in := instructions.Start(io)
		res.Warnings = append(res.Warnings, in.Warnings...)
		res.Context = startContext(h, native, in, profileBlock(ev.Cwd, opts.Slug, &res.Warnings))
		return sess
	}
	// The instructions service locks, reads, and writes only a changed
	// state (a tool call that reports nothing new writes nothing); the
	// state of a harness session is private: 0600.
	written, err := instructions.UpdateStateFile(ctx, path, instructions.StateFileOptions{Mode: 0o600}, func(saved *instructions.State) (instructions.State, error) {
		var sess *instructions.Session
		switch {
		case ev.Kind == Start || saved == nil:
			// A new context window, or a session (or agent) lineage never
			// saw or whose state expired: the model has no reminders yet.
			// A tool event then also gets the reminder for its paths, so
			// nothing is reported one call late.
			sess = start()
		case ev.Kind == Resume:
			r := instructions.Resume(*saved, opts.Instructions)
			res.Context, res.Warnings = r.Text, r.Warnings
			return r.Session.State(), nil
		default:
			sess = instructions.Restore(*saved, opts.Instructions)
		}
		if ev.Kind == Tool {
			var files []instructions.File
			for _, p := range ev.Paths {
				files = append(files, sess.Resolve(p).Files...)
			}
			res.Context = joinNonEmpty(res.Context, instructions.ResolveReminder(files))
		}
		return sess.State(), nil
	})
	if err != nil {
		return Result{}, err
	}
	if written {
		if err := removeExpired(opts.SessionsDir, path, opts.now()); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func joinNonEmpty(parts ...string) string {
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n\n")
}

// profileBlock renders the merged guardrails of slug's agent profile seen
// from dir, each with the file it came from. A slug without a context is a
// warning, not a failure: the session still gets its AGENTS.md.
func profileBlock(dir, slug string, warnings *[]string) string {
	if slug == "" {
		return ""
	}
	ch, err := agents.Resolve(agents.Options{Path: dir}, slug)
	var p *agents.Profile
	if err == nil {
		p, err = ch.RequireProfile(triad.Agent)
	}
	if err != nil {
		*warnings = append(*warnings, fmt.Sprintf("agent profile %s: %v", slug, err))
		return ""
	}
	var b strings.Builder
	b.WriteString("<agent_profile slug=" + strconv.Quote(slug) + ">\n")
	b.WriteString("Guardrails for this agent, merged from its CLIA triads (keep every one):\n")
	g := p.Merged.Get("guardrails")
	n := 0
	if g != nil && g.Kind == triad.Array {
		for i, item := range g.Items {
			if item.Kind != triad.String {
				continue
			}
			n++
			b.WriteString("- " + fsx.LineSafe(item.Text))
			if from := p.Provenance["/guardrails/"+strconv.Itoa(i)]; from != "" {
				b.WriteString(" (from " + fsx.LineSafe(from) + ")")
			}
			b.WriteString("\n")
		}
	}
	if n == 0 {
		b.WriteString("- (none)\n")
	}
	b.WriteString("</agent_profile>")
	return b.String()
}

// SessionPath is the state file of one harness session in dir. A session
// id that is not a plain name (letters, digits, '.', '_', '-'; at most 128
// bytes; not starting with '.') is replaced by its SHA-256, so no id can
// name a file outside dir.
func SessionPath(dir, harness, id string) (string, error) {
	if dir == "" {
		return "", errors.New("no sessions directory")
	}
	return filepath.Join(dir, harness+"-"+safeID(id)+".json"), nil
}

// AgentPath is the state file of one agent of a harness session: the
// session's own ([SessionPath]) for the main agent (agent ""), else
// <harness>-<session>@<agent>.json, each id made safe as in SessionPath.
func AgentPath(dir, harness, session, agent string) (string, error) {
	if agent == "" {
		return SessionPath(dir, harness, session)
	}
	if dir == "" {
		return "", errors.New("no sessions directory")
	}
	return filepath.Join(dir, harness+"-"+safeID(session)+"@"+safeID(agent)+".json"), nil
}

func safeID(id string) string {
	ok := id != "" && len(id) <= 128 && id[0] != '.'
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
	}
	if ok {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256~" + hex.EncodeToString(sum[:])
}

// removeExpired removes the state files in dir last written before
// now-MaxAge, except keep, with their lock files. A lock file is judged by
// its state file (locking never writes it), so the lock of a live session
// is never removed; one whose state file is gone goes once it is old too.
func removeExpired(dir, keep string, now time.Time) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	old := func(p string) bool {
		fi, err := os.Lstat(p)
		return err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > MaxAge
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		state, isLock := strings.CutSuffix(p, ".lock")
		if state == keep || !strings.HasSuffix(state, ".json") {
			continue
		}
		if isLock {
			if _, err := os.Lstat(state); !errors.Is(err, fs.ErrNotExist) || !old(p) {
				continue
			}
		} else if !old(p) {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if !isLock {
			if err := os.Remove(p + ".lock"); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}
