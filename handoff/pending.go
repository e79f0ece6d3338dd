package handoff

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/tract"
)

// Expiry is how long a pending handoff waits for its harness's next
// session start in its project; an older one is never delivered.
const Expiry = 24 * time.Hour

// maxPendingBytes bounds a pending file read: a handoff is a budgeted
// context, far below it.
const maxPendingBytes = 16 << 20

// Pending is a handoff waiting for a harness's next session start in a
// project.
type Pending struct {
	Harness string     `json:"harness"`
	Project string     `json:"project"`
	Session string     `json:"session"`
	Tract   string     `json:"tract"`
	At      tract.Hash `json:"at"`
	Created time.Time  `json:"created"`
	Expires time.Time  `json:"expires"`
	// Text is what the new session's model gets at its start.
	Text string `json:"text"`
}

// Dir is the folder of pending handoffs (lineage's state directory's
// handoffs/), one file per harness and project: a new handoff to the same
// place replaces the one before it.
//
// Two processes meet at a pending file (two sessions starting at once, a
// handoff written while a hook reads): it is written by temporary file and
// rename, and claimed by renaming it to a name only the claiming process
// knows, so exactly one start claims it; the claimer removes it once the
// harness has the text, or puts it back when handing it over failed.
type Dir string

// FileName is the pending file of harness h in project.
func FileName(h, project string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(project)))
	return h + "-" + hex.EncodeToString(sum[:8]) + ".json"
}

// open opens the folder as a root, creating it (0700) when create is set;
// without create, a missing folder (or a path that is not one) is (nil,
// nil).
func (d Dir) open(create bool) (*os.Root, error) {
	if d == "" {
		return nil, errors.New("no state directory for pending handoffs")
	}
	if create {
		if err := os.MkdirAll(string(d), 0o700); err != nil {
			return nil, fmt.Errorf("pending handoffs: %w", err)
		}
	}
	if fi, err := os.Stat(string(d)); !create && (err != nil || !fi.IsDir()) {
		// No folder (or none usable): nothing can be pending there, and
		// whatever is wrong with the state directory is the hook's to say.
		return nil, nil
	}
	r, err := os.OpenRoot(string(d))
	if err != nil {
		return nil, fmt.Errorf("pending handoffs: %w", err)
	}
	return r, nil
}

// Leave writes p as the pending handoff of its harness and project.
func (d Dir) Leave(p Pending) error {
	r, err := d.open(true)
	if err != nil {
		return err
	}
	defer r.Close()
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomicIn(r, FileName(p.Harness, p.Project), data, 0o600)
}

// Peek reads the pending handoff of h in project without claiming it;
// ok is false when there is none or it expired by now.
func (d Dir) Peek(h, project string, now time.Time) (p Pending, ok bool, err error) {
	r, err := d.open(false)
	if r == nil {
		return Pending{}, false, err
	}
	defer r.Close()
	p, err = readPending(r, FileName(h, project))
	if errors.Is(err, fs.ErrNotExist) {
		return Pending{}, false, nil
	}
	if err != nil {
		return Pending{}, false, err
	}
	return p, p.matches(h, project, now), nil
}

func (p Pending) matches(h, project string, now time.Time) bool {
	return p.Harness == h && filepath.Clean(p.Project) == filepath.Clean(project) && now.Before(p.Expires)
}

func readPending(r *os.Root, name string) (Pending, error) {
	f, err := r.Open(name)
	if err != nil {
		return Pending{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPendingBytes+1))
	if err != nil {
		return Pending{}, err
	}
	if len(data) > maxPendingBytes {
		return Pending{}, fmt.Errorf("pending handoff %s: larger than %d bytes", name, maxPendingBytes)
	}
	var p Pending
	if err := json.Unmarshal(data, &p); err != nil {
		return Pending{}, fmt.Errorf("pending handoff %s: %w", name, err)
	}
	return p, nil
}

// Claim is a pending handoff one process holds: [Claim.Done] once the
// harness has its text, [Claim.Release] when handing it over failed.
type Claim struct {
	Pending
	root       *os.Root
	name, held string
}

// Claim takes the pending handoff of h in project, so that no other start
// gets it; nil when there is none. An expired one (or one for another
// place, which its name rules out but a copied file might not) is removed
// and nil returned.
func (d Dir) Claim(h, project string, now time.Time) (*Claim, error) {
	r, err := d.open(false)
	if r == nil {
		return nil, err
	}
	name := FileName(h, project)
	var rnd [8]byte
	rand.Read(rnd[:])
	held := "." + strings.TrimSuffix(name, ".json") + "." + hex.EncodeToString(rnd[:]) + ".claimed"
	if err := r.Rename(name, held); err != nil {
		r.Close()
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("claim pending handoff: %w", err)
	}
	p, err := readPending(r, held)
	if err != nil || !p.matches(h, project, now) {
		r.Remove(held)
		r.Close()
		return nil, err
	}
	return &Claim{Pending: p, root: r, name: name, held: held}, nil
}

// Done removes the claimed handoff: it was delivered.
func (c *Claim) Done() error {
	defer c.root.Close()
	return c.root.Remove(c.held)
}

// Release puts the claimed handoff back for the next start, unless a newer
// one was left meanwhile.
func (c *Claim) Release() error {
	defer c.root.Close()
	if _, err := c.root.Lstat(c.name); err == nil {
		return c.root.Remove(c.held)
	}
	return c.root.Rename(c.held, c.name)
}

// PendingOf is the pending handoff of res (a harness target) for project,
// made at now: it expires [Expiry] later.
func PendingOf(res Result, project string, now time.Time) Pending {
	return Pending{Harness: string(res.To), Project: project, Session: res.Session, Tract: res.Tract, At: res.At,
		Created: now.UTC(), Expires: now.UTC().Add(Expiry), Text: Text(res)}
}

// Prepared is a handoff composed and, for a harness, left pending.
type Prepared struct {
	Result
	// Command starts the harness's session; Pending is the handoff left
	// for its next session start (nil for a printed target).
	Command string   `json:"command,omitempty"`
	Pending *Pending `json:"pending,omitempty"`
}

// Prepare composes the handoff o describes ([Compose]) and, when it goes to
// a harness, leaves it pending in d for that harness's next session start in
// project, made at now; cwd is where the start command is run from. It is
// what `lineage handoff --to` and MCP's session_handoff do.
func Prepare(ctx context.Context, o Options, d Dir, project, cwd string, now time.Time) (Prepared, error) {
	res, err := Compose(ctx, o)
	if err != nil {
		return Prepared{}, err
	}
	out := Prepared{Result: res}
	if res.To.Harness() {
		p := PendingOf(res, project, now)
		if err := d.Leave(p); err != nil {
			return Prepared{}, err
		}
		out.Pending, out.Command = &p, StartCommand(res.To, project, cwd)
	}
	return out, nil
}
