package instructions

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/internal/tokens"
)

// words counts whitespace-separated words: a stand-in tokenizer whose counts
// the test can predict.
var words = tokens.Func{Name: "words", Fn: func(s string) int { return len(strings.Fields(s)) }}

func TestInitialCountsTokensPerFileAndTotal(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "one two three\n", "a/AGENTS.md": "four five", "a/b/AGENTS.md": "   \n"})
	o := opts(filepath.Join(root, "a/b"))
	o.Tokens = words
	_, in := Start(o)
	got := []int{}
	for _, f := range in.Files {
		got = append(got, f.Tokens)
	}
	if len(got) != 3 || got[0] != 3 || got[1] != 2 || got[2] != 0 || in.Tokens != 5 || in.TokenEncoding != "words" {
		t.Errorf("tokens per file %v, total %d %q; want [3 2 0], 5 words", got, in.Tokens, in.TokenEncoding)
	}
	e := Explain(o, "")
	if e.Tokens != 5 || e.Dirs[0].Tokens != 3 || e.Dirs[1].Tokens != 2 {
		t.Errorf("explain: total %d, dirs %+v", e.Tokens, e.Dirs)
	}
	if len(in.Warnings) != 0 {
		t.Errorf("warnings without a budget: %v", in.Warnings)
	}
	// Without a counter nothing is counted (and the vocabulary not loaded).
	_, plain := Start(opts(filepath.Join(root, "a/b")))
	if plain.Tokens != 0 || plain.TokenEncoding != "" || plain.Files[0].Tokens != 0 {
		t.Errorf("counted without a counter: %+v", plain)
	}
}

func TestTokenBudgetWarns(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "one two three"})
	for budget, warns := range map[int]bool{2: true, 3: false, 100: false} {
		o := opts(root, func(c *Config) { c.Initial.BudgetTokens = budget })
		o.Tokens = words
		_, in := Start(o)
		got := strings.Join(in.Warnings, "\n")
		if warns != strings.Contains(got, "over the budget") {
			t.Errorf("budget %d: warnings %q", budget, got)
		}
		if warns && !strings.Contains(got, "3 tokens (words), over the budget of 2") {
			t.Errorf("budget %d: warning %q does not give the numbers", budget, got)
		}
	}
	// A budget alone turns counting on with the default encoding.
	_, in := Start(opts(root, func(c *Config) { c.Initial.BudgetTokens = 1 }))
	if in.TokenEncoding != tokens.Default || in.Tokens == 0 || len(in.Warnings) != 1 {
		t.Errorf("budget without a counter: %d %q %v", in.Tokens, in.TokenEncoding, in.Warnings)
	}
}
