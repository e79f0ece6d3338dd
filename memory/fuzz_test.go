package memory

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func checkParsed(t *testing.T, out []string) {
	for _, s := range out {
		if s == "" || s != strings.TrimSpace(s) || strings.Contains(s, "\n") || !utf8.ValidString(s) {
			t.Fatalf("bad memory %q", s)
		}
	}
}

func FuzzParseClaudeMemory(f *testing.F) {
	f.Add([]byte("# Memory\n- fact one\n* fact two\n1. three\n<!-- c\n-->\n```\nx\n```\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkParsed(t, ParseClaudeMemory(data)) })
}

func FuzzParseGeminiMemories(f *testing.F) {
	f.Add([]byte("# Project\n\n## Gemini Added Memories\n- likes Go\n- uses tabs\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkParsed(t, ParseGeminiMemories(data)) })
}
