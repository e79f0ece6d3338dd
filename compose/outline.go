package compose

import (
	"bytes"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlineage/lineage/tract"
)

// Outline is a Result's provenance in a size that does not grow with the
// history: what a face answering every turn (the MCP server) returns beside
// the request. The instruction, skills and profile blocks are listed in
// full; the tract's messages, kept and dropped, as runs of consecutive
// messages with one source. The Result itself (every block, every dropped
// message) is what `lineage context --json` prints.
type Outline struct {
	Totals `json:",inline"`
	// Messages is how many messages the request has.
	Messages int `json:"messages"`
	// Blocks are the request's blocks that do not come from the tract
	// (instructions, skills, profile), in full.
	Blocks []Block `json:"blocks"`
	// Runs are the tract's messages of the request in order, as runs; the
	// newest MaxRuns of them when there are more (OmittedRuns says how
	// many older ones are not listed).
	Runs        []Run `json:"runs"`
	OmittedRuns int   `json:"omittedRuns,omitzero"`
	// Dropped are the instruction files left out, with the reason.
	Dropped []Dropped `json:"dropped"`
	// DroppedRuns are the newest messages the budget dropped, as runs in
	// the order tract lists them: at most maxDroppedRuns runs among the
	// newest maxDroppedScan messages. EarlierDropped sums up the older
	// ones (their count, tokens, first and last commit; tract and
	// priority are not looked at). DroppedMessageCount and
	// DroppedMessageTokens count them all.
	DroppedRuns          []DroppedRun `json:"droppedRuns"`
	EarlierDropped       *DroppedRun  `json:"earlierDropped,omitempty"`
	DroppedMessageCount  int          `json:"droppedMessageCount"`
	DroppedMessageTokens int          `json:"droppedMessageTokens"`
	Warnings             []string     `json:"warnings"`
}

// Run is a stretch of consecutive messages of the request from one source:
// messages Index to Index+Count-1, in the same part, from commits First to
// Last (in history order) of the same author tract and spawn path, all of
// the same priority.
type Run struct {
	Index     int            `json:"index"`
	Count     int            `json:"count"`
	Part      string         `json:"part"`
	Tract     string         `json:"tract"`
	SpawnPath []string       `json:"spawnPath"`
	Priority  tract.Priority `json:"priority"`
	Tokens    int            `json:"tokens"`
	First     tract.Hash     `json:"first"`
	Last      tract.Hash     `json:"last"`
}

// DroppedRun is a stretch of consecutive dropped messages (in the order
// tract lists them) of one author tract and priority: Count messages of
// Tokens tokens, commits First to Last.
type DroppedRun struct {
	Count    int            `json:"count"`
	Tract    string         `json:"tract,omitempty"`
	Priority tract.Priority `json:"priority,omitempty"`
	Tokens   int            `json:"tokens"`
	First    tract.Hash     `json:"first"`
	Last     tract.Hash     `json:"last"`
}

// maxDroppedScan bounds the dropped messages an outline looks at.
const maxDroppedScan = 512

// Outline sums res up (see [Outline]), listing at most maxRuns runs of
// kept messages and maxDroppedRuns of dropped ones, the newest. It reads
// each block once and at most the newest 512 dropped messages.
func (res Result) Outline(maxRuns, maxDroppedRuns int) Outline {
	o := Outline{Totals: res.Totals, Messages: len(res.Blocks),
		Blocks: []Block{}, Runs: []Run{}, Dropped: res.Dropped, DroppedRuns: []DroppedRun{},
		DroppedMessageCount: res.DroppedMessageCount, DroppedMessageTokens: res.DroppedMessageTokens, Warnings: res.Warnings}
	if o.Dropped == nil {
		o.Dropped = []Dropped{}
	}
	if o.Warnings == nil {
		o.Warnings = []string{}
	}
	for i := range res.Blocks {
		b := &res.Blocks[i]
		if b.Source != SourceTract {
			o.Blocks = append(o.Blocks, *b)
			continue
		}
		if n := len(o.Runs); n > 0 {
			r := &o.Runs[n-1]
			if r.Index+r.Count == b.Index && r.Part == b.Part && r.Tract == b.Tract && r.Priority == b.Priority && slices.Equal(r.SpawnPath, b.SpawnPath) {
				r.Count++
				r.Tokens += b.Tokens
				r.Last = b.Commit
				continue
			}
		}
		o.Runs = append(o.Runs, Run{Index: b.Index, Count: 1, Part: b.Part, Tract: b.Tract, SpawnPath: b.SpawnPath,
			Priority: b.Priority, Tokens: b.Tokens, First: b.Commit, Last: b.Commit})
	}
	if len(o.Runs) > maxRuns {
		o.OmittedRuns = len(o.Runs) - maxRuns
		o.Runs = o.Runs[o.OmittedRuns:]
	}
	// Runs of the newest dropped messages, newest first while scanning,
	// within a window: the oldest run of a long history is as long as the
	// history, and an outline is answered every turn.
	dm := res.DroppedMessages
	from := max(len(dm)-maxDroppedScan, 0)
	var runs []DroppedRun
	for i := len(dm) - 1; i >= from; i-- {
		d := &dm[i]
		if n := len(runs); n > 0 {
			r := &runs[n-1]
			if r.Tract == d.Tract && r.Priority == d.Priority {
				r.Count++
				r.Tokens += d.Tokens
				r.First = d.Commit
				continue
			}
			if n == maxDroppedRuns {
				from = i + 1
				break
			}
		}
		runs = append(runs, DroppedRun{Count: 1, Tract: d.Tract, Priority: d.Priority, Tokens: d.Tokens, First: d.Commit, Last: d.Commit})
	}
	slices.Reverse(runs)
	o.DroppedRuns = append(o.DroppedRuns, runs...)
	if from > 0 {
		o.EarlierDropped = &DroppedRun{Count: from, Tokens: res.DroppedMessageTokens, First: dm[0].Commit, Last: dm[from-1].Commit}
		for _, r := range runs {
			o.EarlierDropped.Tokens -= r.Tokens
		}
	}
	return o
}

// RequestText is the request as a model-facing face hands it over: the
// text format as it is, the JSON formats as compact JSON with every
// message (each object in an array at the top two levels: the messages, the
// tools) starting a line of its own. A line break followed by a printable
// character other than "/" is where a tokenizer's piece ends, so the text
// can be counted line by line, and an appended message adds lines without
// changing the others.
func (res Result) RequestText() (string, error) {
	if res.Request.Format == FormatText {
		return res.Request.Text, nil
	}
	b, err := json.Marshal(res.Request, json.Deterministic(true), jsontext.AllowInvalidUTF8(true))
	if err != nil {
		return "", err
	}
	var out strings.Builder
	out.Grow(len(b) + len(b)/32)
	breakElements(&out, b)
	return out.String(), nil
}

// breakElements writes the compact JSON b to out with a line break before
// every object that is an element of an array at depth one or two.
func breakElements(out *strings.Builder, b []byte) {
	var open [3]byte // the innermost containers up to depth 3
	depth := 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			// Copy the string through its closing quote.
			j := i + 1
			for {
				k := bytes.IndexByte(b[j:], '"')
				if k < 0 {
					out.Write(b[i:])
					return
				}
				j += k
				bs := 0
				for bs < j-i-1 && b[j-1-bs] == '\\' {
					bs++
				}
				if bs%2 == 0 {
					break
				}
				j++
			}
			out.Write(b[i : j+1])
			i = j
			continue
		case '{', '[':
			if c == '{' && depth >= 1 && depth <= 2 && open[depth-1] == '[' {
				out.WriteByte('\n')
			}
			if depth < len(open) {
				open[depth] = c
			}
			depth++
		case '}', ']':
			depth--
		}
		out.WriteByte(b[i])
	}
}
