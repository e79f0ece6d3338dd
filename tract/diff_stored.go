package tract

import "context"

// diffStored is Diff when the stored checkpoint serves both compiles
// (planStored: each its head, or a few plain appends after or before
// it): both are the stored messages up to a point and the appends' after
// it, so they share the stored messages up to the nearer point, whose
// messages are read but neither held nor compared (a prefix both sides
// hold alike adds no change). ok is false when only Diff's compiles can
// tell.
func (r *Repo) diffStored(ctx context.Context, tractName, a, b, encoding string) (DiffResult, bool, error) {
	if r.noCheckpoints {
		return DiffResult{}, false, nil
	}
	var sides [2]storedCompile
	var res [2]Result
	for i, ref := range []string{a, b} {
		t, counter, head, err := r.compileTarget(ctx, tractName, CompileOptions{At: ref, Encoding: encoding})
		if err != nil || head == "" {
			return DiffResult{}, false, nil // Diff's compiles say why
		}
		part := ViewMessages
		if i == 1 {
			part = ViewHeader // the same row as a's, or no use
		}
		sc, ok, err := r.planStored(ctx, &lookup{}, t, counter, head, false, part)
		if err != nil || !ok || sc.patch != nil || i == 1 && sc.cv.Sum != sides[0].cv.Sum {
			return DiffResult{}, false, err
		}
		if i == 1 {
			sc.cv = sides[0].cv
		}
		sides[i] = sc
		res[i] = Result{Tract: t.Name, Head: head, Encoding: counter.Encoding(), TractID: t.ID}
	}
	t := Tract{ID: res[0].TractID}
	mr, sm, err := openMessages(sides[0].cv.Messages, t, sides[0].cv.Head)
	if err != nil {
		return DiffResult{}, false, nil
	}
	n := mr.left
	kept := [2]int{sides[0].stored(n), sides[1].stored(n)}
	shared := min(kept[0], kept[1])
	var m Message
	for range shared {
		if !mr.next(&m) {
			return DiffResult{}, false, nil
		}
	}
	mr.arena = newHexArena(n - shared)
	rest := make([]Message, n-shared)
	for i := range rest {
		if !mr.next(&rest[i]) {
			return DiffResult{}, false, nil
		}
	}
	if mr.err() != nil {
		return DiffResult{}, false, nil
	}
	var counts [2]int
	for i, sc := range sides {
		if !sc.cutMatches(rest) {
			return DiffResult{}, false, nil
		}
		res[i].Tokens = sm.tokens + tokensPrimer - sc.cutTokens()
		res[i].Messages = append([]Message(nil), rest[:kept[i]-shared]...)
		for _, m := range sc.more {
			m.Slot += sm.slots
			res[i].Messages = append(res[i].Messages, m)
			res[i].Tokens += m.Tokens
		}
		counts[i] = kept[i] + len(sc.more)
	}
	return diffOf(res[0], res[1], a, b, counts[0], counts[1]), true, nil
}
