package tract

import (
	"fmt"
	"strings"
)

// Text renders messages for reading: "role: content" blocks separated by
// blank lines, tool calls and results marked.
func Text(msgs []Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteString("\n")
		}
		label := m.Role
		if m.Name != "" {
			label += " (" + m.Name + ")"
		}
		if m.ToolCallID != "" {
			label += " [" + m.ToolCallID + "]"
		}
		if m.Content == "" {
			fmt.Fprintf(&b, "%s:\n", label)
		} else {
			fmt.Fprintf(&b, "%s: %s\n", label, m.Content)
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "  -> %s %s(%s)\n", tc.ID, tc.Name, tc.Arguments)
		}
	}
	return b.String()
}
