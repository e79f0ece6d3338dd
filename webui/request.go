package webui

import (
	"fmt"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
)

// The compile page shows the first MaxShownBytes of the request. Rendering
// the whole request of a long context to cut it there would cost memory in
// proportion to the history (a 100k-message tract's openai request is tens
// of megabytes, held twice while indented), so the page renders only a
// prefix of the messages long enough to fill what it shows.

// maxRequestExtra bounds what a prefix takes in beyond its shown bytes:
// the tool results that complete its last tool calls, and for the
// Anthropic format the later system messages it hoists.
const maxRequestExtra = 4 * MaxShownBytes

// requestShown is the request of res in format f as the compile page shows
// it, res holding the prefix of the messages a prefixer took (whole: all
// of them): the whole request when it is short, else its first
// MaxShownBytes, which are those of the whole request (see prefixer), and
// a line saying the rest is not shown.
func requestShown(res tract.Result, f wire.Format, whole bool) (string, error) {
	rendered, err := wire.Render(res, f)
	if err != nil {
		return "", err
	}
	var text string
	switch f {
	case wire.FormatText:
		text = rendered.Text
	case wire.FormatOpenAI:
		text = indentJSON(rendered.OpenAI)
	case wire.FormatOpenAIRequest:
		text = indentJSON(rendered.OpenAIRequest)
	case wire.FormatAnthropic:
		text = indentJSON(rendered.Anthropic)
	}
	if whole || len(text) <= MaxShownBytes {
		return shown(text, MaxShownBytes), nil
	}
	return shownCut(text, MaxShownBytes, "the rest of the request is not shown"), nil
}

// prefixer takes, from a compile's messages handed to add in order, those
// whose request begins as the whole request does for at least
// MaxShownBytes. A rendered message is never shorter than its text
// (escaping only adds), so messages whose texts pass MaxShownBytes render
// past it; the prefix goes on until its tool calls have their results and
// a run of tool results ends (a repair of the request pairs calls with
// results), and for the Anthropic format, which gathers every system
// message into its system field, it takes the later system messages too.
// Both additions stop after maxRequestExtra bytes. n counts the messages
// taken before the additions end: all of them when n is the compile's
// count.
type prefixer struct {
	f           wire.Format
	part        []tract.Message
	n           int
	size, extra int
	open        map[string]bool // the prefix's tool calls without a result yet
	// phase: 0 filling, 1 completing tool calls, 2 gathering system
	// messages (Anthropic).
	phase int
}

// add takes m (copied) when the prefix wants it; false when the prefix
// wants no more messages.
func (p *prefixer) add(m *tract.Message) bool {
	switch p.phase {
	case 0:
		if p.size <= MaxShownBytes {
			p.size += messageBytes(m)
			p.take(m)
			return true
		}
		p.phase = 1
		fallthrough
	case 1:
		if (len(p.open) > 0 || m.Role == tract.RoleTool) && p.extra <= maxRequestExtra {
			p.extra += messageBytes(m)
			p.take(m)
			return true
		}
		p.phase = 2
	}
	if p.f != wire.FormatAnthropic || p.extra > maxRequestExtra {
		return false
	}
	if m.Role == tract.RoleSystem {
		p.part = append(p.part, m.Clone())
		p.extra += messageBytes(m)
	}
	return true
}

func (p *prefixer) take(m *tract.Message) {
	for _, c := range m.ToolCalls {
		p.open[c.ID] = true
	}
	delete(p.open, m.ToolCallID)
	p.part = append(p.part, m.Clone())
	p.n++
}

// messageBytes is the bytes of m's texts: a lower bound of its rendering.
func messageBytes(m *tract.Message) int {
	n := len(m.Content) + len(m.Name) + len(m.ToolCallID)
	for _, c := range m.ToolCalls {
		n += len(c.ID) + len(c.Name) + len(c.Arguments)
	}
	return n
}

// shownCut is shown(s, max) for a text known to go on past s: s is cut at
// max and the note, not a count of the bytes left, ends it.
func shownCut(s string, max int, note string) string {
	return fmt.Sprintf("%s\n… %s", shown(s[:cutAt(s, max)], max), note)
}
