package tract

import (
	"context"
	"fmt"
)

// Messages is a compile handed out one message at a time: what a writer
// of a long context wants (tract/wire writes a provider's format from it),
// so that a compile the stored checkpoint serves is read and written
// message by message, never all held as Messages. Repo.CompileMessages
// hands it out; it is valid only during that call.
type Messages struct {
	tract string
	n     int
	plain bool
	// Either the messages are held (list) …
	list []Message
	i    int
	// … or read from a stored checkpoint (mr, stored of them) and
	// followed by more.
	mr     *messagesReader
	stored int
	more   []Message
	slots  int // added to more's slots, as the result has them
	fail   func() error
}

// heldMessages hands out msgs, a compile of tract.
func heldMessages(tract string, msgs []Message) *Messages {
	return &Messages{tract: tract, n: len(msgs), plain: Plain(msgs), list: msgs}
}

// Tract is the name of the tract compiled.
func (ms *Messages) Tract() string { return ms.tract }

// Len is how many messages there are.
func (ms *Messages) Len() int { return ms.n }

// Plain reports whether Plain holds for all the messages.
func (ms *Messages) Plain() bool { return ms.plain }

// Next reads the next message into m, false at the end or when the
// stored checkpoint proves damaged (Err). A message read from the stored
// checkpoint has every field but its hashes (Commit, Summarizes), which
// stay empty: they would take memory per message, and no provider's format
// has them (Compile's result does).
func (ms *Messages) Next(m *Message) bool {
	switch {
	case ms.mr == nil:
		if ms.i >= len(ms.list) {
			return false
		}
		*m = ms.list[ms.i]
	case ms.i < ms.stored:
		if !ms.mr.next(m) {
			return false
		}
	default:
		if ms.i >= ms.n {
			return false
		}
		*m = ms.more[ms.i-ms.stored]
		m.Slot += ms.slots
	}
	ms.i++
	return true
}

// All is every message not read yet, in order: the held list itself when
// the messages are held (read only, like every Result slice).
func (ms *Messages) All() []Message {
	if ms.mr == nil {
		rest := ms.list[ms.i:]
		ms.i = len(ms.list)
		return rest
	}
	out := make([]Message, 0, ms.n-ms.i)
	var m Message
	for ms.Next(&m) {
		out = append(out, m)
	}
	return out
}

// Err is the damage met reading the stored checkpoint: the messages
// handed out before it are all there are.
func (ms *Messages) Err() error {
	if ms.fail != nil {
		return ms.fail()
	}
	return nil
}

// Plain reports whether msgs are plain chat: no tool call or tool result,
// and every message's name a valid tool name (1 to 64 of a-z A-Z 0-9 _ -).
// A plain context is what a provider's API takes as it stands; any other
// may need repair first (tract/wire).
func Plain(msgs []Message) bool {
	for i := range msgs {
		m := &msgs[i]
		if m.Role == RoleTool || len(m.ToolCalls) > 0 || m.Name != "" && !validToolName(m.Name) {
			return false
		}
	}
	return true
}

// CompileMessages hands tractName's cold compile under o to use as a
// message sequence: the messages of CompileCold's result. When the stored
// checkpoint serves the compile, no budget applies and every message is
// Plain, they are read from the checkpoint as use asks for them, never
// all held (what a process that prints a long context once wants).
func (r *Repo) CompileMessages(ctx context.Context, tractName string, o CompileOptions, use func(*Messages) error) error {
	t, counter, head, err := r.compileTarget(ctx, tractName, o)
	if err != nil {
		return err
	}
	// The stored checkpoint is looked up once (lookup).
	lk := &lookup{}
	if o.Budget == 0 && !r.noCheckpoints && head != "" {
		if done, err := r.serveStored(ctx, lk, use, t, counter, head, o.Uncounted); done || err != nil {
			return err
		}
	}
	res, err := r.compileAt(ctx, lk, t, counter, head, o, false)
	if err != nil {
		return err
	}
	return use(heldMessages(t.Name, res.Messages))
}

// streamStored hands out the stored checkpoint's messages and the
// appended ones (planStored) one at a time; ok is false, with use not
// called, when they are not all Plain or the part does not decode.
func streamStored(use func(*Messages) error, t Tract, sc storedCompile) (bool, error) {
	mr, sm, err := sc.open(t)
	if err != nil || sm.repair || !Plain(sc.more) {
		return false, nil
	}
	total := mr.size()
	ms := &Messages{tract: t.Name, plain: true, mr: mr, stored: sc.stored(total), more: sc.more, slots: sm.slots}
	ms.n = ms.stored + len(sc.more)
	ms.fail = func() error {
		if mr.errLeft(total-ms.stored) != nil {
			// The part matched its sum, so only a layout this build
			// reads differently gets here: say so.
			return fmt.Errorf("compile checkpoint of tract %s (%s, head %s): %w", t.Name, sc.cv.Encoding, sc.cv.Head.Short(), errViewData)
		}
		return nil
	}
	return true, use(ms)
}
