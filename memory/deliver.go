package memory

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/internal/fsx"
)

// DefaultMaxBytes is the default cap of the memory a session start gets
// (LINEAGE_MEMORY_MAX_BYTES changes it; 0 sends none).
const DefaultMaxBytes = 4096

// Candidates are what a delivery chooses from: the lineage memories of
// the scopes, the harnesses' own and the agent's journal.
type Candidates struct {
	Lineage, Native, Journal []Memory
}

// DeliverOptions say who starts: the harness and its session (the state
// key), where (Where.Cwd ranks), the cap and the state folder.
type DeliverOptions struct {
	Where   Where
	Harness string
	Session string
	// StateDir holds one file per harness session naming what it was
	// sent; "" keeps no state (every start sends again).
	StateDir string
	// MaxBytes caps the block, tags and header included; 0 sends none.
	MaxBytes int
}

// Delivery is a session start's memory block and what it holds.
type Delivery struct {
	// Text is the block for the model, "" for none.
	Text string
	// Sent are the memories in it, in its order; Left those the cap left
	// out (they may come at a later start).
	Sent, Left []Memory
	keys       []string
	o          DeliverOptions
}

// Deliver chooses the memories a session start gets: not sent to this
// session before, not a memory the harness loads by itself (its own
// memory file, or a lineage memory of the same text), most relevant to
// the folder first (saved there or above it, then the project's and
// agent's, then the user's), newest first among equals, under the cap.
// [Delivery.Done] records them once the harness has the text.
func Deliver(c Candidates, o DeliverOptions) (Delivery, error) {
	d := Delivery{o: o}
	if o.MaxBytes <= 0 {
		return d, nil
	}
	sent, err := readSent(o)
	if err != nil {
		return d, err
	}
	own := map[string]bool{}
	for _, m := range c.Native {
		if m.Source == o.Harness {
			own[normalText(m.Text)] = true
		}
	}
	var pool []Memory
	for _, group := range [][]Memory{c.Lineage, c.Native, c.Journal} {
		for _, m := range group {
			if m.Source == o.Harness || own[normalText(m.Text)] || sent[key(m)] {
				continue
			}
			pool = append(pool, m)
		}
	}
	slices.SortStableFunc(pool, func(a, b Memory) int {
		return cmp.Or(cmp.Compare(relevance(b, o.Where.Cwd), relevance(a, o.Where.Cwd)), b.Newest().Compare(a.Newest()))
	})
	const head = BlockOpen + "\nWhat lineage remembers for this user, project and agent, most relevant and newest first; each names where it came from:\n"
	const tail = BlockClose
	var b strings.Builder
	size := len(head) + len(tail)
	for _, m := range pool {
		line := Line(m) + "\n"
		if size+len(line) > o.MaxBytes {
			d.Left = append(d.Left, m)
			continue
		}
		size += len(line)
		b.WriteString(line)
		d.Sent = append(d.Sent, m)
		d.keys = append(d.keys, key(m))
	}
	if len(d.Sent) > 0 {
		d.Text = head + b.String() + tail
	}
	return d, nil
}

// BlockOpen and BlockClose frame the memories a session start gets.
const (
	BlockOpen  = "<lineage_memory>"
	BlockClose = "</lineage_memory>"
)

// Delivered is the memories, one [Line] each, of every memory block in
// text (a hook's answer as the harness kept it), in order.
func Delivered(text string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(text, BlockOpen)
		if !ok {
			return out
		}
		block, after, _ := strings.Cut(rest, BlockClose)
		text = after
		for _, item := range strings.Split(block, "\n- ")[1:] {
			out = append(out, "- "+strings.TrimRight(item, "\n"))
		}
	}
}

// relevance ranks a memory for a folder: saved in it or above it (3),
// a project's or agent's (2), the rest (1).
func relevance(m Memory, cwd string) int {
	switch {
	case m.Cwd != "" && cwd != "" && fsx.Contains(filepath.Clean(m.Cwd), filepath.Clean(cwd)):
		return 3
	case m.Scope != User:
		return 2
	}
	return 1
}

// Line is one memory as a session start gets it: its text, then its
// provenance in parentheses.
func Line(m Memory) string {
	text := strings.ReplaceAll(strings.TrimSpace(m.Text), "\n", "\n  ")
	return "- " + text + " (" + Provenance(m) + ")"
}

// Provenance says where a memory came from: its scope and id, who saved
// it, in which session, when ("project memory 2d5248d9, saved by claude in
// session 0a1b2c3d at 2026-11-28T12:00:00Z").
func Provenance(m Memory) string {
	if m.Source == "lineage" {
		p := string(m.Scope) + " memory " + m.ID
		if m.Slug != "" {
			p += " of agent " + m.Slug
		}
		return p + ", " + Origin(m)
	}
	return Origin(m)
}

// Origin is [Provenance] without the scope and id: who saved the memory,
// where and when, or which file of a harness or journal holds it.
func Origin(m Memory) string {
	var p string
	switch m.Source {
	case "lineage":
		p = "saved"
		if m.Harness != "" {
			p += " by " + m.Harness
		}
		if m.Session != "" {
			p += " in session " + short(m.Session)
		}
	case "journal":
		p = "agent " + m.Slug + "'s agency journal"
	default:
		p = harnessTitle(m.Source) + "'s own memory in " + fsx.LineSafe(m.File)
	}
	if !m.Created.IsZero() {
		p += " at " + m.Created.UTC().Format(time.RFC3339)
	}
	if !m.Edited.IsZero() {
		p += ", edited at " + m.Edited.UTC().Format(time.RFC3339)
	}
	return p
}

func harnessTitle(h string) string {
	switch h {
	case "claude":
		return "Claude Code"
	case "gemini":
		return "Gemini CLI"
	case "codex":
		return "Codex CLI"
	}
	return h
}

func short(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

func normalText(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// key names a memory in a session's sent set: a lineage memory by its
// commit, any other by its source and text.
func key(m Memory) string {
	if m.Commit != "" {
		return string(m.Commit)
	}
	sum := sha256.Sum256([]byte(m.Source + "\x00" + m.Slug + "\x00" + normalText(m.Text)))
	return m.Source + ":" + hex.EncodeToString(sum[:12])
}

// sentState is a session's state file: the keys of what it was sent.
type sentState struct {
	Harness string   `json:"harness"`
	Session string   `json:"session"`
	Sent    []string `json:"sent"`
}

func stateName(o DeliverOptions) string {
	sum := sha256.Sum256([]byte(o.Session))
	return o.Harness + "-" + hex.EncodeToString(sum[:8]) + ".json"
}

// maxStateBytes bounds a session's state file (its sent keys).
const maxStateBytes = 4 << 20

func readSent(o DeliverOptions) (map[string]bool, error) {
	set := map[string]bool{}
	if o.StateDir == "" || o.Session == "" {
		return set, nil
	}
	root, err := os.OpenRoot(o.StateDir)
	if errors.Is(err, fs.ErrNotExist) {
		return set, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memory state: %w", err)
	}
	defer root.Close()
	// Through the root and regular only: a FIFO or a huge file put there
	// must fail the delivery, never hang the hook.
	data, _, err := fsx.ReadRegularIn(root, stateName(o), maxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return set, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memory state: %w", err)
	}
	var st sentState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("memory state %s: %w", stateName(o), err)
	}
	for _, k := range st.Sent {
		set[k] = true
	}
	return set, nil
}

// Done records what d sent as sent to its session, under the state
// file's lock (merged with what another start of the same session
// recorded meanwhile). Call it once the harness has the text.
func (d Delivery) Done(ctx context.Context) error {
	o := d.o
	if len(d.keys) == 0 || o.StateDir == "" || o.Session == "" {
		return nil
	}
	if err := os.MkdirAll(o.StateDir, 0o700); err != nil {
		return fmt.Errorf("memory state: %w", err)
	}
	root, err := os.OpenRoot(o.StateDir)
	if err != nil {
		return fmt.Errorf("memory state: %w", err)
	}
	defer root.Close()
	name := stateName(o)
	l, err := fsx.LockFileIn(ctx, root, name+".lock")
	if err != nil {
		return fmt.Errorf("memory state: %w", err)
	}
	defer l.Unlock()
	set, err := readSent(o)
	if err != nil {
		set = map[string]bool{}
	}
	for _, k := range d.keys {
		set[k] = true
	}
	st := sentState{Harness: o.Harness, Session: o.Session, Sent: make([]string, 0, len(set))}
	for k := range set {
		st.Sent = append(st.Sent, k)
	}
	slices.Sort(st.Sent)
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomicIn(root, name, data, 0o600)
}
