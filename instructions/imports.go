package instructions

import (
	"path/filepath"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
)

// ImportRef is one "@path" import found in an instruction file.
type ImportRef struct {
	// Spec is the path as written after the "@".
	Spec string
	// Line is the 1-based line it is on.
	Line int
}

// ScanImports finds the "@path" imports of a Markdown text, in document
// order, with the semantics Claude Code and Gemini CLI share: an "@" at the
// start of a line or after a space or tab, followed by the path up to the
// next white space; not inside a fenced code block (``` or ~~~, indented
// at most three spaces, closed by a fence of the same character at least as
// long) nor inside a code span (a run of backticks closed by a run of the
// same length before a blank line). The path must start with "./", "../",
// "/", "~/" or a letter, digit or "_" (so "@" alone, "@@x" or "@-" are
// text); a URL ("scheme://…") is not an import. Trailing sentence
// punctuation (".,;:!?)" and closing brackets and quotes) is not part of the
// path: "see @docs/git.md." imports docs/git.md.
func ScanImports(text string) []ImportRef {
	var out []ImportRef
	lines := strings.SplitAfter(text, "\n")
	var fence string // the open fence's marker, "" outside a fenced block
	// span is the backtick run of an open code span ("" when none); it is
	// dropped at a blank line.
	span := ""
	for i, raw := range lines {
		line := strings.TrimRight(raw, "\r\n")
		if fence != "" {
			if closesFence(line, fence) {
				fence = ""
			}
			continue
		}
		if span == "" {
			if f := openingFence(line); f != "" {
				fence = f
				continue
			}
		}
		if strings.TrimSpace(line) == "" {
			span = ""
			continue
		}
		span = scanLine(line, i+1, span, &out)
	}
	return out
}

// openingFence returns the fence a line opens ("```", "~~~~", …) or "".
func openingFence(line string) string {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	if indent > 3 {
		return ""
	}
	rest := line[indent:]
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(rest) && rest[n] == c {
			n++
		}
		if n >= 3 {
			if c == '`' && strings.ContainsRune(rest[n:], '`') {
				return "" // "```x```" is a code span, not a fence
			}
			return rest[:n]
		}
	}
	return ""
}

// closesFence reports whether line closes a block opened by fence.
func closesFence(line, fence string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	n := 0
	for n < len(t) && t[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimSpace(t[n:]) == ""
}

// scanLine scans one line outside fenced blocks. openSpan is the backtick
// run of a code span opened on an earlier line ("" if none); it returns the
// run still open at the end of the line.
func scanLine(line string, lineNo int, openSpan string, out *[]ImportRef) string {
	for i := 0; i < len(line); {
		c := line[i]
		if c == '`' {
			n := i
			for n < len(line) && line[n] == '`' {
				n++
			}
			run := line[i:n]
			switch {
			case openSpan != "" && run == openSpan:
				openSpan = ""
			case openSpan == "":
				openSpan = run
			}
			i = n
			continue
		}
		if openSpan != "" || c != '@' || (i > 0 && !isBlank(line[i-1])) {
			i++
			continue
		}
		end := i + 1
		for end < len(line) && !isBlank(line[end]) {
			end++
		}
		if spec := importSpec(line[i+1 : end]); spec != "" {
			*out = append(*out, ImportRef{Spec: spec, Line: lineNo})
		}
		i = end
	}
	// A span still open continues on the next line, up to a blank line
	// (where ScanImports drops it). Unlike CommonMark, which makes an
	// unclosed run literal, the text after it is not scanned: an unmatched
	// backtick never turns text into imports.
	return openSpan
}

// importSpec cleans the token after an "@" into a path, or "" when the
// token is not an import.
func importSpec(tok string) string {
	tok = strings.TrimRight(tok, ".,;:!?)]}>'\"")
	if tok == "" || strings.Contains(tok, "://") || strings.ContainsRune(tok, '`') {
		return ""
	}
	switch c := tok[0]; {
	case c == '.' || c == '/' || c == '_':
	case c == '~':
		if tok != "~" && !strings.HasPrefix(tok, "~/") {
			return ""
		}
	case 'a' <= c|0x20 && c|0x20 <= 'z', '0' <= c && c <= '9':
	case c >= 0x80: // a letter of another script
	default:
		return ""
	}
	if tok == "~" || tok == "." || tok == ".." {
		return ""
	}
	return tok
}

// importPath resolves spec against the importing file's directory: "~/"
// is home (no home: ok false), an absolute spec is itself.
func importPath(spec, importerDir, home string) (string, bool) {
	switch {
	case strings.HasPrefix(spec, "~/"):
		if home == "" {
			return "", false
		}
		return filepath.Join(home, filepath.FromSlash(spec[2:])), true
	case filepath.IsAbs(spec) || strings.HasPrefix(spec, "/"):
		return filepath.Clean(filepath.FromSlash(spec)), true
	default:
		return fsx.Abs(importerDir, filepath.FromSlash(spec)), true
	}
}

// isBlank reports ASCII white space within a line.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }
