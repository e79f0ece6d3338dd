package tract

import (
	"encoding/hex"
)

// Annotations made after a stored checkpoint. An annotation changes one
// commit's priority; the checkpoint's messages were rendered with the
// priorities before it. When every such annotation is the compiled tract's
// own (a viewer's own annotation decides its commits' priority before any
// inherited or authored one) and names a commit that renders exactly one
// stored message that nothing else depends on, the compile is the stored
// messages with those messages' priorities changed and the skipped ones
// left out: a patch (annPatch), checked against the messages before any
// is handed out. Anything else (another tract's annotation, a commit that
// renders no stored message, so that a skipped one might come back, a
// summary, a named instruction, whose skip brings back an earlier one, a
// pinned message un-pinned, which a summary's range may then take) is
// left to the full compile.

// maxPatchAnnotations is the most annotations after a checkpoint a patch
// takes; more go through the full compile (which stores a checkpoint).
const maxPatchAnnotations = 256

// annPatch is the priorities annotations after a checkpoint give, by the
// commit's key in the messages layout (hashKey), and what checking them
// against the stored messages found.
type annPatch struct {
	raw map[string]Priority // by the commit hash's 32 bytes
	str map[string]Priority // by a hash the layout stores as a string
	// Filled by check: how many stored messages each key matched, how many
	// the patch leaves out and their tokens.
	hits       map[string]int
	bad        bool
	checked    bool
	skips      int
	skipTokens int
}

// newPatch is the patch of anns for viewer t, or nil when they cannot
// make one.
func newPatch(t Tract, anns []Annotation) *annPatch {
	if len(anns) > maxPatchAnnotations {
		return nil
	}
	p := &annPatch{raw: map[string]Priority{}, str: map[string]Priority{}}
	for _, a := range anns {
		if a.Viewer != t.ID {
			return nil
		}
		var raw [32]byte
		if len(a.Commit) == 64 {
			if _, err := hex.Decode(raw[:], []byte(a.Commit)); err == nil && hex.EncodeToString(raw[:]) == string(a.Commit) {
				p.raw[string(raw[:])] = a.Priority
				continue
			}
		}
		p.str[string(a.Commit)] = a.Priority
	}
	return p
}

// lookup reads the commit hash ahead of r (as hashRef would, without
// moving r) and returns its new priority, if the patch has one.
func (p *annPatch) lookup(r *viewReader) (string, Priority, bool) {
	c := *r
	switch c.uint() {
	case 0:
		k := c.str()
		if pr, ok := p.str[k]; ok {
			return "0" + k, pr, true
		}
	case 1:
		if len(c.s) < 32 {
			return "", "", false
		}
		if pr, ok := p.raw[c.s[:32]]; ok {
			return "1" + c.s[:32], pr, true
		}
	}
	return "", "", false
}

// note records, on the checking pass, a stored message m the patch gives
// priority pr.
func (p *annPatch) note(key string, m *Message, pr Priority) {
	p.hits[key]++
	if m.Type == TypeSummary || len(m.Summarizes) > 0 || m.Type == TypeInstruction && m.Name != "" ||
		m.Priority == Pinned && pr != Pinned || m.Tokens < 0 {
		p.bad = true
	}
	if pr == Skip {
		p.skips++
		p.skipTokens += m.Tokens
	}
}

// check reads the stored messages of data once and reports whether the
// patch makes exactly the compile a full one would (see above).
func (p *annPatch) check(data []byte, t Tract, head Hash) bool {
	if p.checked {
		return !p.bad
	}
	p.checked, p.hits, p.skips, p.skipTokens = true, map[string]int{}, 0, 0
	mr, _, err := openMessages(data, t, head)
	if err != nil {
		p.bad = true
		return false
	}
	mr.patch, mr.checking = p, true
	var m Message
	for mr.next(&m) {
	}
	if mr.err() != nil || len(p.hits) != len(p.raw)+len(p.str) {
		p.bad = true
	}
	for _, n := range p.hits {
		if n != 1 {
			p.bad = true
		}
	}
	return !p.bad
}

// open is openMessages of sc's stored messages with sc's patch applied
// (checked first): the reader leaves out what it skips and hands out the
// new priorities, and sm's tokens are the patched ones. ok is false when
// the patch does not hold.
func (sc storedCompile) open(t Tract) (*messagesReader, storedMessages, error) {
	if sc.patch != nil && !sc.patch.check(sc.cv.Messages, t, sc.cv.Head) {
		return nil, storedMessages{}, errViewData
	}
	mr, sm, err := openMessages(sc.cv.Messages, t, sc.cv.Head)
	if err != nil || sc.patch == nil {
		return mr, sm, err
	}
	mr.patch, mr.skips = sc.patch, sc.patch.skips
	sm.tokens -= sc.patch.skipTokens
	return mr, sm, nil
}
