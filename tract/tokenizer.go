package tract

import "github.com/agentlineage/lineage/internal/tokens"

// Tokenizer counts the tokens of texts in one encoding: the public face of
// the counters compile, budgets, pressure and the MCP server use. lineage's
// own are the real o200k_base (the default) and cl100k_base tokenizers
// (NewTokenizer); a library caller passes its own (another model's
// tokenizer, an estimate) through Options.Tokenizer:
//
//	repo := tract.New(store, tract.Options{Tokenizer: func(encoding string) (tract.Tokenizer, error) {
//		return myTokenizer{}, nil // Encoding() "my-model", Count(text) int
//	}})
//
// Token counts are cached in the store per encoding name (in blobs and
// compile checkpoints), so a Tokenizer that counts differently from
// lineage's must give its own Encoding name; Count must be a pure
// function of the text and safe for concurrent use.
type Tokenizer = tokens.Counter

// NewTokenizer returns lineage's tokenizer of an encoding: "o200k_base"
// ("" too) or "cl100k_base". Its vocabulary is loaded once per process.
func NewTokenizer(encoding string) (Tokenizer, error) { return tokens.Get(encoding) }

// Encodings lists the encodings NewTokenizer knows, sorted.
func Encodings() []string { return tokens.Encodings() }
