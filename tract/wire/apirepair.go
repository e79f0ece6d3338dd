package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/agentlineage/lineage/tract"
	"github.com/go-json-experiment/json/jsontext"
)

// Both chat APIs refuse a request whose tool calls and results do not pair
// up: an assistant message with tool calls must be followed at once by one
// result per call, and a result must answer a call just before it. A
// compiled context need not look like that (an annotation skipped one side,
// a user message was committed between a call and its result, ids came from
// elsewhere), so OpenAI and ToAnthropic first repair the messages the same
// way, never dropping content:
//   - ids, message names and the function names of tool calls are mapped
//     to [A-Za-z0-9_-]{1,64}, leaving valid ones as they are and giving
//     others a readable prefix and a hash suffix (same input, same id);
//   - a call id used by an earlier call of the request (a parent and a
//     merged child reusing one) gets a new id of the same kind, derived
//     from the id and its commit, for the call and its result alike;
//   - each result moves right after the assistant message of its call;
//   - a call without a result (skipped, or still to come) becomes text of
//     its assistant message, and a result without a call (or a second
//     result for one) becomes a user message saying whose result it was.

// maxAPIID is the longest id or name the APIs accept.
const maxAPIID = 64

// APIID maps s to [A-Za-z0-9_-]{1,64} deterministically: a valid s is
// returned as it is; any other gets its valid characters (at most 40) and
// "_" and 16 hex digits of its SHA-256, so different inputs stay different.
func APIID(s string) string {
	if validAPIID(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 40 {
			break
		}
		if apiIDRune(r) {
			b.WriteRune(r)
		}
	}
	sum := sha256.Sum256([]byte(s))
	if b.Len() == 0 {
		b.WriteString("id")
	}
	return b.String() + "_" + hex.EncodeToString(sum[:8])
}

// uniqueAPIID is the n-th other id for a call id that commit reuses: its
// valid characters (at most 40) and 16 hex digits of a SHA-256 of the id,
// the commit and n.
func uniqueAPIID(id string, commit tract.Hash, n int) string {
	var b strings.Builder
	for _, r := range id {
		if b.Len() >= 40 {
			break
		}
		if apiIDRune(r) {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		b.WriteString("id")
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d", id, commit, n))
	return b.String() + "_" + hex.EncodeToString(sum[:8])
}

func validAPIID(s string) bool {
	if s == "" || len(s) > maxAPIID {
		return false
	}
	for _, r := range s {
		if !apiIDRune(r) {
			return false
		}
	}
	return true
}

func apiIDRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// apiMessages returns msgs repaired as described above; msgs is not
// modified. Messages with nothing to repair (no tool call or result, valid
// names: most chats) are returned as they are, not copied.
func apiMessages(msgs []tract.Message) []tract.Message {
	if !needsRepair(msgs) {
		return msgs
	}
	// Pair each result with the newest unanswered call of its id before it.
	type callRef struct{ msg, call int }
	pending := map[string]callRef{}
	answered := map[callRef]int{} // call → result message
	orphan := make([]bool, len(msgs))
	for i, m := range msgs {
		switch {
		case m.Role == tract.RoleAssistant && len(m.ToolCalls) > 0:
			for j, tc := range m.ToolCalls {
				pending[APIID(tc.ID)] = callRef{i, j}
			}
		case m.Role == tract.RoleTool:
			id := APIID(m.ToolCallID)
			if c, ok := pending[id]; ok {
				answered[c] = i
				delete(pending, id)
			} else {
				orphan[i] = true
			}
		}
	}
	out := make([]tract.Message, 0, len(msgs))
	used := map[string]bool{} // call ids given out so far
	for i, m := range msgs {
		if m.Name != "" {
			m.Name = APIID(m.Name)
		}
		switch {
		case m.Role == tract.RoleTool && orphan[i]:
			m.Role = tract.RoleUser
			m.Content = fmt.Sprintf("(result of tool call %s) %s", m.ToolCallID, m.Content)
			m.ToolCallID = ""
			out = append(out, m)
		case m.Role == tract.RoleTool:
			// Emitted after its call.
		case m.Role == tract.RoleAssistant && len(m.ToolCalls) > 0:
			var kept []tract.ToolCall
			var results []tract.Message
			var notes []string
			for j, tc := range m.ToolCalls {
				r, ok := answered[callRef{i, j}]
				if !ok {
					notes = append(notes, fmt.Sprintf("(tool call %s: %s %s, no result)", tc.ID, tc.Name, tc.Arguments))
					continue
				}
				id := APIID(tc.ID)
				for n := 0; used[id]; n++ {
					id = uniqueAPIID(tc.ID, m.Commit, n)
				}
				used[id] = true
				tc.ID, tc.Name = id, APIID(tc.Name)
				kept = append(kept, tc)
				res := msgs[r]
				res.ToolCallID = tc.ID
				res.Name = ""
				results = append(results, res)
			}
			m.ToolCalls = kept
			if len(notes) > 0 {
				m.Content = strings.Join(append(textLines(m.Content), notes...), "\n")
			}
			out = append(out, m)
			out = append(out, results...)
		default:
			out = append(out, m)
		}
	}
	return out
}

func textLines(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []string{s}
}

// toolInput is a tool call's arguments as the JSON object Anthropic wants:
// the arguments themselves when they are one, {} when empty, else
// {"arguments": the text}.
func toolInput(args string) jsontext.Value {
	if strings.TrimSpace(args) == "" {
		return jsontext.Value("{}")
	}
	v := jsontext.Value(args)
	if v.IsValid() && v.Kind() == '{' {
		return v
	}
	b, _ := jsontext.AppendQuote(nil, args)
	return jsontext.Value(`{"arguments":` + string(b) + `}`)
}

// needsRepair reports whether apiMessages could change anything in msgs:
// whether they are not tract.Plain.
func needsRepair(msgs []tract.Message) bool { return !tract.Plain(msgs) }
