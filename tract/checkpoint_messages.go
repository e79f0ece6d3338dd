package tract

import (
	"encoding/hex"
	"unsafe"
)

// The messages layout: the view's rendered messages as compile returns
// them, with the tracts they name and the tools in force, in the data
// layout's encoding. A header says whether the messages need the chat
// APIs' repair (not Plain), so a compile that only writes them in the
// openai format can stream them; a commit hash is its 32 bytes (hashRef).
func encodeMessages(v *view) []byte {
	b, _ := encodePieces(v, 0)
	return b
}

// encodePieces is encodeMessages and where its pieces end: the header
// (piece 0), then pieces of at most rows messages (pieceRows for 0) and
// about pieceBytes bytes (checkpoint_pieces.go).
func encodePieces(v *view, rows int) ([]byte, []pieceInfo) {
	if rows <= 0 {
		rows = pieceRows
	}
	size := 64
	for i := range v.rendered {
		size += 64 + len(v.rendered[i].Content)
	}
	w := &viewWriter{b: make([]byte, 0, size)}
	w.uint(viewFormat)
	w.str(v.viewer.ID)
	w.str(string(v.head))
	w.uint(uint64(len(v.lin.order)))
	w.int(int64(v.tokens))
	w.bool(!Plain(v.rendered))
	w.uint(uint64(len(v.tools)))
	for _, td := range v.tools {
		w.str(td.Name)
		w.str(td.Description)
		w.str(string(td.Parameters))
	}
	// Author tracts, in order of first use.
	var ids, names []string
	index := map[string]int{}
	for i := range v.rendered {
		m := &v.rendered[i]
		if _, ok := index[m.TractID]; !ok {
			index[m.TractID] = len(ids)
			ids, names = append(ids, m.TractID), append(names, m.Tract)
		}
	}
	w.uint(uint64(len(ids)))
	for i := range ids {
		w.str(ids[i])
		w.str(names[i])
	}
	w.uint(uint64(len(v.rendered)))
	pieces := []pieceInfo{{size: len(w.b)}}
	cur := pieceInfo{}
	start := len(w.b)
	slot := 0 // slots as differences: mostly 1
	for i := range v.rendered {
		m := &v.rendered[i]
		if cur.rows == 0 {
			cur = pieceInfo{first: i, slot: slot}
		}
		w.enum(m.Role, storedRoles)
		w.str(m.Content)
		w.str(m.Name)
		w.str(m.ToolCallID)
		w.toolCalls(m.ToolCalls)
		w.enum(string(m.Type), storedTypes)
		w.enum(string(m.Priority), storedPriorities)
		w.int(int64(m.Tokens))
		w.hashRef(m.Commit)
		w.uint(uint64(index[m.TractID]))
		w.int(int64(m.Slot - slot))
		slot = m.Slot
		w.uint(uint64(len(m.Summarizes)))
		for _, h := range m.Summarizes {
			w.hashRef(h)
		}
		cur.rows++
		cur.tokens += m.Tokens
		if cur.rows == rows || len(w.b)-start >= pieceBytes || i == len(v.rendered)-1 {
			cur.size = len(w.b) - start
			pieces = append(pieces, cur)
			cur, start = pieceInfo{}, len(w.b)
		}
	}
	return w.b, pieces
}

// hashRef writes a commit hash of the messages layout: 1 and its 32
// bytes, or (not a lowercase hex SHA-256, which no commit has) 0 and the
// string.
func (w *viewWriter) hashRef(h Hash) {
	var raw [32]byte
	if len(h) == 64 {
		if _, err := hex.Decode(raw[:], []byte(h)); err == nil && hex.EncodeToString(raw[:]) == string(h) {
			w.uint(1)
			w.b = append(w.b, raw[:]...)
			return
		}
	}
	w.uint(0)
	w.str(string(h))
}

// hashRef reads what viewWriter.hashRef wrote; with a nil arena a hash
// written as bytes is skipped ("").
func (r *viewReader) hashRef(a *hexArena) Hash {
	switch r.uint() {
	case 0:
		return Hash(r.str())
	case 1:
		if a != nil {
			return a.hash(r)
		}
		if len(r.s) < 32 {
			r.fail()
			return ""
		}
		r.s = r.s[32:]
		return ""
	}
	r.fail()
	return ""
}

// storedMessages are a checkpoint's messages decoded.
type storedMessages struct {
	messages []Message
	tools    []ToolDef
	tokens   int
	// slots is the length of the view's linearization.
	slots int
	// repair tells whether the messages need the APIs' repair.
	repair bool
}

// messagesReader reads a messages part one message at a time; strings
// share the part's memory.
type messagesReader struct {
	r       viewReader
	authors [][2]string
	// arena makes the commit hashes (nil: they are skipped).
	arena *hexArena
	slot  int
	// left is how many messages are still to be read.
	left int
	// patch, when not nil, changes the priorities of the messages it
	// names and leaves out those it skips (skips of them still to come);
	// checking: it only notes them (annPatch.check).
	patch    *annPatch
	checking bool
	skips    int
}

// size is how many messages are still to be handed out.
func (mr *messagesReader) size() int { return mr.left - mr.skips }

// openMessages reads the header of what encodeMessages wrote for viewer
// at head, up to the first message.
func openMessages(data []byte, viewer Tract, head Hash) (*messagesReader, storedMessages, error) {
	return openHeader(data, viewer, head, true)
}

// openHeader is openMessages; without whole, data is the header alone
// (piece 0), the messages' count not bounded by it.
func openHeader(data []byte, viewer Tract, head Hash, whole bool) (*messagesReader, storedMessages, error) {
	var sm storedMessages
	if len(data) == 0 {
		return nil, sm, errViewData
	}
	mr := &messagesReader{r: viewReader{s: unsafe.String(&data[0], len(data))}}
	r := &mr.r
	if r.uint() != viewFormat || r.str() != viewer.ID || Hash(r.str()) != head {
		return nil, sm, errViewData
	}
	sm.slots = int(r.uint())
	sm.tokens = int(r.int())
	sm.repair = r.bool()
	if k := r.count(); k > 0 {
		sm.tools = make([]ToolDef, k)
		for j := range sm.tools {
			sm.tools[j] = ToolDef{Name: r.str(), Description: r.str()}
			if p := r.str(); p != "" {
				sm.tools[j].Parameters = []byte(p)
			}
		}
	}
	mr.authors = make([][2]string, r.count())
	for i := range mr.authors {
		mr.authors[i] = [2]string{r.str(), r.str()}
	}
	if whole {
		mr.left = r.count()
	} else {
		mr.left = int(min(r.uint(), 1<<30))
	}
	if r.err != nil {
		return nil, sm, r.err
	}
	return mr, sm, nil
}

// next reads the next message into m (every field), false at the end or
// at damage (err).
func (mr *messagesReader) next(m *Message) bool {
	for {
		if mr.left == 0 || mr.r.err != nil {
			return false
		}
		mr.left--
		r := &mr.r
		m.Role, m.Content, m.Name, m.ToolCallID = r.enum(storedRoles), r.str(), r.str(), r.str()
		m.ToolCalls = r.toolCalls()
		m.Type, m.Priority = Type(r.enum(storedTypes)), Priority(r.enum(storedPriorities))
		m.Tokens = int(r.int())
		var (
			key string
			pr  Priority
			hit bool
		)
		if mr.patch != nil {
			key, pr, hit = mr.patch.lookup(r)
		}
		m.Commit = r.hashRef(mr.arena)
		if a := r.uint(); a < uint64(len(mr.authors)) {
			m.TractID, m.Tract = mr.authors[a][0], mr.authors[a][1]
		} else {
			r.fail()
		}
		mr.slot += int(r.int())
		m.Slot = mr.slot
		m.Summarizes = nil
		if k := r.count(); k > 0 {
			m.Summarizes = make([]Hash, k)
			for j := range m.Summarizes {
				m.Summarizes[j] = r.hashRef(mr.arena)
			}
		}
		switch {
		case r.err != nil || !hit:
		case mr.checking:
			mr.patch.note(key, m, pr)
		case pr == Skip:
			mr.skips--
			continue
		default:
			m.Priority = pr
		}
		return r.err == nil
	}
}

// err is the damage found, or the data's end not where the messages end.
func (mr *messagesReader) err() error { return mr.errLeft(0) }

// errLeft is err for a reader that stops with left messages not read (a
// compile that cuts them, storedCompile.cut).
func (mr *messagesReader) errLeft(left int) error {
	if left == 0 && mr.skips > 0 {
		var m Message
		if mr.next(&m) { // only skipped messages may be left
			return errViewData
		}
	}
	if mr.r.err != nil || mr.left != left || left == 0 && mr.r.s != "" {
		return errViewData
	}
	return nil
}

// decodeMessages reads what encodeMessages wrote for viewer at head, with
// room for extra messages after them; strings share data's memory.
func decodeMessages(data []byte, viewer Tract, head Hash, extra int) (storedMessages, error) {
	mr, sm, err := openMessages(data, viewer, head)
	if err != nil {
		return sm, err
	}
	return decodeFrom(mr, sm, extra)
}

// decodeFrom reads the messages of mr (opened as sm) into sm, with room
// for extra messages after them.
func decodeFrom(mr *messagesReader, sm storedMessages, extra int) (storedMessages, error) {
	n := mr.size()
	mr.arena = newHexArena(n)
	sm.messages = make([]Message, n, n+extra)
	for i := range sm.messages {
		if !mr.next(&sm.messages[i]) {
			break
		}
	}
	return sm, mr.err()
}

// The strings the messages layout writes as numbers. Append only: a
// string's number is its place.
var (
	storedRoles      = []string{RoleUser, RoleAssistant, RoleSystem, RoleTool}
	storedTypes      = []string{string(TypeMessage), string(TypeInstruction), string(TypeToolCall), string(TypeToolResult), string(TypeSummary)}
	storedPriorities = []string{string(Normal), string(Pinned), string(Important), string(Skip)}
)
