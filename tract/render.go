package tract

// priority is commit i's priority for the viewer: the viewer's newest
// annotation, else the author's, else the type's default. Metadata is never
// compiled whatever its annotations say.
func (v *view) priority(i int, content *Content) Priority {
	c := v.lin.order[i]
	if content.Type == TypeMetadata {
		return Skip
	}
	if p, ok := v.ann[annKey{v.viewer.ID, c.Hash}]; ok {
		return p
	}
	if p, ok := v.inheritedPriority(i, c.Hash); ok {
		return p
	}
	if p, ok := v.ann[annKey{c.Tract, c.Hash}]; ok {
		return p
	}
	return DefaultPriority(content.Type)
}

// candidate reports whether commit i renders, leaving named instructions
// aside: an append, not skipped, not another tract's spawn seed (see
// inherit.go).
func (v *view) candidate(i int, content *Content) (Priority, bool) {
	c := v.lin.order[i]
	if c.Operation != OpAppend {
		return "", false
	}
	p := v.priority(i, content)
	if p == Skip {
		return p, false
	}
	if content.Seed && !v.seedSeen(i, c.Tract) {
		return p, false
	}
	return p, true
}

func (v *view) message(i int, content *Content, tokens int, p Priority) Message {
	c := v.lin.order[i]
	m := Message{Role: content.Role, Content: content.Text, Name: content.Name, ToolCallID: content.ToolCallID,
		ToolCalls: content.ToolCalls, Type: content.Type, Priority: p, Commit: c.Hash,
		Tract: v.tracts[c.Tract].Name, TractID: c.Tract, Slot: i}
	m.Tokens = MessageTokens(tokens, m.Name != "")
	if tokens < 0 {
		m.Tokens = -1 // uncounted (CompileOptions.Uncounted)
	}
	return m
}

// render derives the messages from the linearization: edits replace their
// target's content (the latest edit wins), priorities filter, and of the
// instructions sharing a name only the latest stays, at its own position.
func (v *view) render() {
	v.refreshInheritance()
	n := len(v.lin.order)
	eff := make([]int, n)
	for i := range eff {
		eff[i] = i
	}
	// What merges leave out has no effect at all: it neither renders
	// nor edits nor compresses.
	pk := v.selection()
	for i, c := range v.lin.order {
		if c.Operation == OpEdit && (pk.out == nil || !pk.out[i]) {
			if t, ok := v.lin.index(c.EditTarget); ok {
				eff[t] = i
			}
		}
	}
	prio := make([]Priority, n)
	ok := make([]bool, n)
	for i := range v.lin.order {
		prio[i], ok[i] = v.candidate(i, &v.entries[eff[i]].content)
		if pk.out != nil && pk.out[i] {
			ok[i] = false
		}
	}
	desel := pk.out
	v.leftOut, v.leftOutKnown = pk.leftOut(), true
	sums := v.summaries(prio, ok, desel)
	lastNamed := map[string]int{}
	lastTools := -1
	for i := range v.lin.order {
		content := &v.entries[eff[i]].content
		if ok[i] && content.Type == TypeInstruction && content.Name != "" {
			lastNamed[content.Name] = i
		}
		if ok[i] && content.Type == TypeTools {
			lastTools = i
		}
	}
	v.tools = nil
	if lastTools >= 0 {
		v.tools = v.entries[eff[lastTools]].content.Tools
	}
	// Room to grow: warm compiles append to this slice.
	v.rendered = make([]Message, 0, n+n/8+64)
	v.gen++
	v.tokens = 0
	renders := func(i int) bool {
		e := &v.entries[eff[i]]
		return ok[i] && e.content.Type != TypeTools && !(e.content.Type == TypeInstruction && e.content.Name != "" && lastNamed[e.content.Name] != i)
	}
	for i := range v.lin.order {
		for _, x := range pk.at[i] {
			if renders(x) {
				e := &v.entries[eff[x]]
				m := v.message(x, &e.content, e.tokens, prio[x])
				m.Slot = i
				v.rendered = append(v.rendered, m)
				v.tokens += m.Tokens
			}
		}
		if renders(i) && (pk.moved == nil || !pk.moved[i]) {
			e := &v.entries[eff[i]]
			m := v.message(i, &e.content, e.tokens, prio[i])
			v.rendered = append(v.rendered, m)
			v.tokens += m.Tokens
		}
		for _, s := range sums[i] {
			e := &v.entries[s.index]
			m := v.message(s.index, &e.content, e.tokens, s.priority)
			m.Slot, m.Summarizes = i, s.replaced
			v.rendered = append(v.rendered, m)
			v.tokens += m.Tokens
		}
	}
}

// extendRendered renders entries from index from on, when they are plain
// appends that cannot change anything before them; it reports false when a
// full render is needed instead.
func (v *view) extendRendered(from int) bool {
	if v.growsInheritance(from) {
		return false
	}
	v.refreshInheritance()
	for i := from; i < len(v.lin.order); i++ {
		c := v.lin.order[i]
		content := &v.entries[i].content
		if c.Operation == OpEdit || c.Operation == OpCompress || (content.Type == TypeInstruction && content.Name != "") || content.Type == TypeTools || selectionOf(c) != nil ||
			(c.Operation == OpMerge && (v.leftOut > 0 || !v.leftOutKnown)) {
			return false
		}
	}
	for i := from; i < len(v.lin.order); i++ {
		e := &v.entries[i]
		p, ok := v.candidate(i, &e.content)
		if !ok {
			continue
		}
		m := v.message(i, &e.content, e.tokens, p)
		v.rendered = append(v.rendered, m)
		v.tokens += m.Tokens
	}
	return true
}

// leftOut counts the commits left out.
func (pk picks) leftOut() int {
	n := 0
	for _, o := range pk.out {
		if o {
			n++
		}
	}
	return n
}
