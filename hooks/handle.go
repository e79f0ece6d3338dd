package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/skills"
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
	// Skills, when set, adds to a session start the catalog of the skills
	// the harness does not list by itself (its Cwd is the event's).
	Skills *skills.Options
	// Out, when set, receives the answer as the harness reads it
	// ([Harness.Output]: nothing when there is no context) while the
	// session's state is locked; the state is saved only after the write
	// succeeded. A failed write is Handle's error.
	Out io.Writer
	// Handoff, when set, is asked at a new session's start (not a
	// subagent's, not the start after a compaction) for a handoff waiting
	// for it ("" for none); its text joins the start's context, and done
	// (when not nil) learns whether the answer reached the harness.
	Handoff func(ev Event) (text string, done func(delivered bool))
	// Memory, when set, is asked at a main agent's session start or resume
	// (any source: what it sent before is its to leave out) for the memories
	// the session gets; its text follows the handoff's, and done learns
	// whether the answer reached the harness.
	Memory func(ev Event) (text string, done func(delivered bool))
}

// takesHandoff reports whether ev starts a new session a pending handoff
// may go to.
func takesHandoff(ev Event) bool {
	return ev.Kind == Start && ev.AgentID == "" && ev.Source != "compact"
}

// startExtras asks opts for what a start carries besides instructions:
// the pending handoff and the memories; done tells each asker whether the
// answer reached the harness.
func startExtras(opts Options, ev Event) (handoff, mem string, done func(delivered bool)) {
	var dones []func(bool)
	if ev.Silent {
		// The harness does not read this answer.
		return "", "", func(bool) {}
	}
	if opts.Handoff != nil && takesHandoff(ev) {
		var d func(bool)
		if handoff, d = opts.Handoff(ev); d != nil {
			dones = append(dones, d)
		}
	}
	if opts.Memory != nil && (ev.Kind == Start || ev.Kind == Resume) && ev.AgentID == "" {
		var d func(bool)
		if mem, d = opts.Memory(ev); d != nil {
			dones = append(dones, d)
		}
	}
	return handoff, mem, func(delivered bool) {
		for _, d := range dones {
			d(delivered)
		}
	}
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
//
// The harness must never be blocked or left without context by lineage's
// own bookkeeping, so:
//   - opts.Out, when set, gets the answer while the state is still
//     locked, and the state is saved only when it succeeded: a
//     reminder that never reached the model is not marked reported;
//   - a state file that is not a state is moved aside to
//     "<file>.broken" with a warning, and the event is answered as if
//     there were none;
//   - without a usable sessions directory (missing and not creatable,
//     read-only, full, a symbolic link) the event is answered without
//     state, with a warning: the initial block at a start or resume, and
//     every tool call's files as new beyond the initial chain.
func Handle(ctx context.Context, h *Harness, ev Event, opts Options) (Result, error) {
	if ev.Kind == Ignored {
		return Result{}, nil
	}
	opts.Instructions.Cwd = ev.Cwd
	var res Result
	var deliverErr error
	delivered := false
	handoff, mem, done := startExtras(opts, ev)
	defer func() { done(delivered) }()
	deliver := func() error {
		res.Context = joinNonEmpty(res.Context, handoff, mem)
		deliverErr = writeAnswer(h, ev, res, opts)
		delivered = deliverErr == nil
		return deliverErr
	}
	ran := false
	path, err := AgentPath(opts.SessionsDir, h.Name, ev.SessionID, ev.AgentID)
	var dir *os.Root
	if err == nil {
		dir, err = usableSessionsDir(opts.SessionsDir)
	}
	if dir != nil {
		defer dir.Close()
	}
	if err == nil {
		var done bool
		if path, done, err = bracket(dir, h, &ev, path); done {
			return Result{}, err
		}
	}
	var written bool
	if err == nil {
		// The instructions service locks, reads, and writes only a changed
		// state (a tool call that reports nothing new writes nothing); the
		// state of a harness session is private: 0600.
		fileOpts := instructions.StateFileOptions{Mode: 0o600, Dir: dir, Broken: func(aside string, err error) {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%v; moved it aside to %s and started afresh", err, aside))
		}}
		written, err = instructions.UpdateStateFile(ctx, path, fileOpts, func(saved *instructions.State) (instructions.State, error) {
			ran = true
			st := answer(&res, h, ev, saved, false, opts)
			return st, deliver()
		})
	}
	switch {
	case deliverErr != nil:
		return Result{}, deliverErr
	case err != nil && ctx.Err() != nil:
		return Result{}, err
	case err != nil && ran:
		// Answered and handed over; only the saving failed. The next event
		// repeats what this one said rather than losing it.
		res.Warnings = append(res.Warnings, fmt.Sprintf("session state not saved: %v", err))
		return res, nil
	case err != nil:
		res = Result{Warnings: append(res.Warnings, fmt.Sprintf("no session state (%v); answering without it", err))}
		answer(&res, h, ev, nil, true, opts)
		if err := deliver(); err != nil {
			return Result{}, err
		}
		return res, nil
	}
	if written {
		if err := removeExpired(dir, filepath.Base(path), opts.now()); err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("removing expired session states: %v", err))
		}
	}
	return res, nil
}

// bracket handles the events around a subagent whose events carry no
// agent field (Gemini CLI's invoke_agent) and compactions: a marker file
// says a subagent runs, so the tool events until its end are its own; its
// end removes the marker; a compaction drops the agent's state, so its
// next event is answered as a start. done: the event needs no answer.
// It returns the state path the event belongs to.
func bracket(dir *os.Root, h *Harness, ev *Event, path string) (string, bool, error) {
	if h.SubagentTool == "" && ev.Kind != Compact {
		return path, false, nil
	}
	sub, err := AgentPath(".", h.Name, ev.SessionID, GeminiSubagent)
	if err != nil {
		return path, false, err
	}
	marker := filepath.Base(sub) + ".active"
	switch {
	case ev.Kind == Compact:
		return path, true, removeIn(dir, filepath.Dir(path), filepath.Base(path))
	case ev.Kind == SubagentEnd || ev.Kind == Start && ev.AgentID == "":
		return path, ev.Kind == SubagentEnd, removeIn(dir, filepath.Dir(path), marker)
	case ev.Kind == Start && ev.AgentID == GeminiSubagent:
		if err := dir.WriteFile(marker, nil, 0o600); err != nil {
			return path, false, err
		}
	case ev.Kind == Tool && ev.AgentID == "":
		if _, err := dir.Lstat(marker); err == nil {
			ev.AgentID = GeminiSubagent
			return filepath.Join(filepath.Dir(path), filepath.Base(sub)), false, nil
		}
	}
	return path, false, nil
}

// removeIn removes name from the sessions directory (dir, a root, opened
// on path): a missing file is no error. Where the root cannot remove
// (Wine answers "Invalid function"), the plain path is tried.
func removeIn(dir *os.Root, path, name string) error {
	err := dir.Remove(name)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err2 := os.Remove(filepath.Join(path, name)); err2 == nil || errors.Is(err2, fs.ErrNotExist) {
		return nil
	}
	return err
}

// writeAnswer hands res to the harness: it writes res's context to
// opts.Out in the harness's output format.
func writeAnswer(h *Harness, ev Event, res Result, opts Options) error {
	if opts.Out == nil || ev.Silent {
		return nil
	}
	out, err := h.Output(ev, res.Context)
	if err != nil {
		return err
	}
	if _, err := opts.Out.Write(out); err != nil {
		return fmt.Errorf("write the answer: %w", err)
	}
	return nil
}

// answer sets res's context for ev given the saved state (nil: none) and
// returns the state to save. An event of a session (or agent) never seen
// is answered as a start, and a tool event then also with the reminder for
// its paths, so nothing is reported one call late; stateless (no sessions
// directory to remember anything in), a tool event reports the files
// beyond the initial chain.
func answer(res *Result, h *Harness, ev Event, saved *instructions.State, stateless bool, opts Options) instructions.State {
	var sess *instructions.Session
	switch {
	case ev.Kind == Start && h.StartOnce && saved != nil:
		// The same start again (another settings file's entry): the
		// session has it already.
		return *saved
	case ev.Kind == Start || saved == nil && (ev.Kind == Resume || !stateless):
		// A new context window, or a session lineage never saw (or whose
		// state expired): the model has no reminders yet.
		sess, res.Context = startSession(res, h, ev, opts)
	case ev.Kind == Resume:
		r := instructions.Resume(*saved, opts.Instructions)
		res.Context, res.Warnings = r.Text, append(res.Warnings, r.Warnings...)
		if h.HeadPerRun {
			// The start's text is gone with the run that showed it; the
			// reminders, in the history, are not.
			_, head := startSession(res, h, ev, opts)
			res.Context = joinNonEmpty(head, res.Context)
		}
		return r.Session.State()
	case saved != nil:
		sess = instructions.Restore(*saved, opts.Instructions)
	default:
		// Stateless: the model got the initial chain at its start, so
		// report what lies beyond it.
		var in instructions.Initial
		sess, in = instructions.Start(opts.Instructions)
		res.Warnings = append(res.Warnings, in.Warnings...)
	}
	if ev.Kind == Tool {
		res.Context = joinNonEmpty(res.Context, toolReminder(h, ev, sess, opts))
	}
	return sess.State()
}

// startSession starts the instructions session of a start in ev.Cwd and
// returns it with the start's text: the bodies of the chain's files the
// harness does not load, the agent's guardrails, the rules, the skills.
func startSession(res *Result, h *Harness, ev Event, opts Options) (*instructions.Session, string) {
	native := nativeView(h, ev.Cwd, opts)
	io := opts.Instructions
	io.Preloaded = native.preloaded
	io.PreloadedImports = h == Claude || h == Gemini // they expand @imports themselves
	sess, in := instructions.Start(io)
	res.Warnings = append(res.Warnings, in.Warnings...)
	text := startContext(h, native, in, profileBlock(ev.Cwd, opts.Slug, &res.Warnings), opts.Instructions.Config.FileNames)
	return sess, joinNonEmpty(text, skillsStart(h, ev.Cwd, opts, &res.Warnings))
}

// toolReminder resolves the paths a tool touched and names the files new
// to the session, except those the harness attached to the tool's result
// itself (they are in the model's context: recorded, not named); files it
// may have attached are named with a text that says so.
func toolReminder(h *Harness, ev Event, sess *instructions.Session, opts Options) string {
	var named, maybe []instructions.File
	var native *Native
	for _, p := range ev.Paths {
		target := p
		if !filepath.IsAbs(target) {
			target = filepath.Join(ev.Cwd, target)
		}
		for _, f := range sess.Resolve(p).Files {
			if native == nil {
				n := nativeView(h, ev.Cwd, opts)
				native = &n
			}
			att := native.Attached(ev.Tool, target, ev.Cwd, f.Path)
			if att == Attached && h == Gemini && ev.AgentID != "" {
				// Gemini CLI shares its just-in-time loaded set between the
				// parent and its subagents: a file the parent was given is
				// not attached again for the subagent.
				att = MaybeAttached
			}
			switch att {
			case Attached:
			case MaybeAttached:
				named, maybe = append(named, f), append(maybe, f)
			default:
				named = append(named, f)
			}
		}
	}
	text := instructions.ResolveReminderNamed(named, opts.Instructions.Config.FileNames)
	if len(maybe) == 0 {
		return text
	}
	ps := make([]string, len(maybe))
	for i, f := range maybe {
		ps[i] = fsx.LineSafe(f.Path)
	}
	note := h.Title + " may have attached the text of " + strings.Join(ps, ", ") + " to that tool's result itself: read those only if it did not."
	return strings.Replace(text, "\n</system-reminder>", "\n"+note+"\n</system-reminder>", 1)
}

// nativeView is what h loads by itself for a start in cwd.
func nativeView(h *Harness, cwd string, opts Options) Native {
	if opts.View != nil {
		return opts.View(h, cwd)
	}
	return NativeView(h, cwd, opts.Env)
}

// usableSessionsDir creates dir (0700) when missing, refuses one that is
// a symbolic link, as a symlinked lock file is refused (following it would
// keep private state wherever it points), and opens it through its parent
// as a root: every later lock, read and write goes through that handle,
// so a link swapped in after the check leads nothing outside the parent.
func usableSessionsDir(dir string) (*os.Root, error) {
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("sessions directory %s is a symbolic link; refusing it", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("sessions directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("sessions directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("sessions directory %s is a %s, not a directory", dir, fsx.KindOf(fi.Mode()))
	}
	parent, err := os.OpenRoot(filepath.Dir(dir))
	if err != nil {
		return nil, fmt.Errorf("sessions directory: %w", err)
	}
	defer parent.Close()
	r, err := fsx.OpenDirIn(parent, filepath.Base(dir), false)
	if err != nil {
		return nil, fmt.Errorf("sessions directory: %w", err)
	}
	return r, nil
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

// removeExpired removes the state files in dir (a root) last written
// before now-MaxAge, except the one named keep, with their lock files. A lock file is judged by
// its state file (locking never writes it), so the lock of a live session
// is never removed; one whose state file is gone goes once it is old too.
func removeExpired(dir *os.Root, keep string, now time.Time) error {
	d, err := dir.Open(".")
	if err != nil {
		return err
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return err
	}
	old := func(name string) bool {
		fi, err := dir.Lstat(name)
		return err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > MaxAge
	}
	for _, e := range entries {
		p := e.Name()
		state, isLock := strings.CutSuffix(p, ".lock")
		if state == keep || !strings.HasSuffix(state, ".json") {
			continue
		}
		if isLock {
			if _, err := dir.Lstat(state); !errors.Is(err, fs.ErrNotExist) || !old(p) {
				continue
			}
		} else if !old(p) {
			continue
		}
		if err := dir.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if !isLock {
			if err := dir.Remove(p + ".lock"); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}
