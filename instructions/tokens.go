package instructions

import (
	"fmt"

	"github.com/agentlineage/lineage/internal/tokens"
)

// TokenCounter counts the tokens of a text in one encoding (the tract
// tokenizer's counters satisfy it; see [DefaultTokenCounter]).
type TokenCounter interface {
	Encoding() string
	Count(text string) int
}

// DefaultTokenCounter is the tract tokenizer's default encoding
// (o200k_base). Its vocabulary loads on the first count.
func DefaultTokenCounter() TokenCounter {
	c, err := tokens.Get("")
	if err != nil {
		return nil // the default encoding is compiled in
	}
	return c
}

// counter returns the counter a load uses: opts.Tokens, or the default one
// when a token budget is set (the budget needs counts), else nil: counting
// costs the vocabulary's load, which a plain initial load does not pay.
func (opts Options) counter() TokenCounter {
	if opts.Tokens != nil {
		return opts.Tokens
	}
	if opts.Config.Initial.BudgetTokens > 0 {
		return DefaultTokenCounter()
	}
	return nil
}

// budgetWarning says when the initial block is over the token budget.
func budgetWarning(cfg Config, total int, encoding string) string {
	if b := cfg.Initial.BudgetTokens; b > 0 && total > b {
		return fmt.Sprintf("the initial instructions are %d tokens (%s), over the budget of %d (initial.budgetTokens); see 'lineage instructions explain' for each file's cost", total, encoding, b)
	}
	return ""
}

// sumTokens is the chain's total: the sum of its files' content tokens.
// The block's header lines name paths, which differ between checkouts, so
// they are left out: the same tree costs the same wherever it lies.
func sumTokens(files []loadedFile) int {
	n := 0
	for _, f := range files {
		n += f.tokens
	}
	return n
}
