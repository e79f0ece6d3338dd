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
// it: the whole request when it is short, else its first MaxShownBytes,
// which are those of the whole request (see shownPrefix), and a line
// saying the rest is not shown.
func requestShown(res tract.Result, f wire.Format) (string, error) {
	part, whole := shownPrefix(res.Messages, f)
	res.Messages = part
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

// shownPrefix is the messages of ms whose request begins as the whole
// request does for at least MaxShownBytes, and whether that is all of ms.
// A rendered message is never shorter than its text (escaping only adds),
// so messages whose texts pass MaxShownBytes render past it; the prefix
// goes on until its tool calls have their results and a run of tool
// results ends (a repair of the request pairs calls with results), and for the Anthropic format, which
// gathers every system message into its system field, it takes the later
// system messages too. Both additions stop after maxRequestExtra bytes.
func shownPrefix(ms []tract.Message, f wire.Format) ([]tract.Message, bool) {
	n, size := 0, 0
	open := map[string]bool{} // the prefix's tool calls without a result yet
	take := func(m *tract.Message) {
		for _, c := range m.ToolCalls {
			open[c.ID] = true
		}
		delete(open, m.ToolCallID)
		n++
	}
	for n < len(ms) && size <= MaxShownBytes {
		size += messageBytes(&ms[n])
		take(&ms[n])
	}
	extra := 0
	for n < len(ms) && (len(open) > 0 || ms[n].Role == tract.RoleTool) && extra <= maxRequestExtra {
		extra += messageBytes(&ms[n])
		take(&ms[n])
	}
	if n == len(ms) {
		return ms, true
	}
	part := ms[:n:n]
	if f == wire.FormatAnthropic {
		for i := n; i < len(ms) && extra <= maxRequestExtra; i++ {
			if ms[i].Role == tract.RoleSystem {
				part = append(part, ms[i])
				extra += messageBytes(&ms[i])
			}
		}
	}
	return part, false
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
