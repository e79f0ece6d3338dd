package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// wordTokenizer is a caller's own tokenizer: one token per word. It
// implements tract.Tokenizer from outside the module's internals.
type wordTokenizer struct{ calls *atomic.Int64 }

func (wordTokenizer) Encoding() string { return "words-v1" }

func (w wordTokenizer) Count(text string) int {
	w.calls.Add(1)
	return len(strings.Fields(text))
}

func openRepo(t *testing.T, o tract.Options) (*tract.Repo, *sqlite.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "lineage.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	repo := tract.New(st, o)
	if _, _, err := repo.Init(ctx); err != nil {
		t.Fatal(err)
	}
	return repo, st
}

// TestCustomTokenizer: a caller's Tokenizer counts every compile, budget
// and pressure figure, under its own encoding name; lineage's own stay
// reachable through NewTokenizer.
func TestCustomTokenizer(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int64
	repo, _ := openRepo(t, tract.Options{Tokenizer: func(encoding string) (tract.Tokenizer, error) {
		if encoding != "" && encoding != "words-v1" {
			return nil, errors.New("only words-v1")
		}
		return wordTokenizer{&calls}, nil
	}})
	for _, text := range []string{"one two three", "four five"} {
		if _, err := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: text}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := repo.Compile(ctx, "main", tract.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// 3+3 and 3+2 per message, 3 for the reply primer.
	if res.Encoding != "words-v1" || res.Tokens != 6+5+3 || res.Messages[0].Tokens != 6 || calls.Load() == 0 {
		t.Fatalf("compile = %d tokens in %s, messages %+v (%d counts)", res.Tokens, res.Encoding, res.Messages, calls.Load())
	}
	// A budget drops by the caller's counts: 11 tokens keep one message.
	res, err = repo.Compile(ctx, "main", tract.CompileOptions{Budget: 11})
	if err != nil || len(res.Messages) != 1 || res.Messages[0].Content != "four five" {
		t.Fatalf("budget 11 = %+v, %v", res.Messages, err)
	}
	if _, err := repo.Compile(ctx, "main", tract.CompileOptions{Encoding: "cl100k_base"}); err == nil || !strings.Contains(err.Error(), "only words-v1") {
		t.Fatalf("an encoding the tokenizer refuses: %v", err)
	}
	own, err := tract.NewTokenizer("")
	if err != nil || own.Encoding() != "o200k_base" || own.Count("hello world") != 2 {
		t.Fatalf("NewTokenizer = %v, %v", own, err)
	}
	if _, err := tract.NewTokenizer("nope"); err == nil {
		t.Fatal("NewTokenizer accepted an unknown encoding")
	}
}

// TestCustomContentType: an x-NAME type is stored, compiled as a message
// of its role (user by default), found and filtered by its name, and
// survives export and import; a malformed custom name is refused.
func TestCustomContentType(t *testing.T) {
	ctx := context.Background()
	repo, _ := openRepo(t, tract.Options{Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }})
	plan, err := tract.CustomType("plan")
	if err != nil || plan != "x-plan" || !plan.Custom() || tract.TypeMessage.Custom() {
		t.Fatalf("CustomType = %q, %v", plan, err)
	}
	c, err := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: plan, Text: `{"steps":["read","write"]}`}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: plan, Role: tract.RoleAssistant, Text: "done: read"}}); err != nil {
		t.Fatal(err)
	}
	res, err := repo.Compile(ctx, "main", tract.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 2 || res.Messages[0].Role != tract.RoleUser || res.Messages[0].Type != plan || res.Messages[1].Role != tract.RoleAssistant || res.Messages[0].Priority != tract.Normal {
		t.Fatalf("compiled = %+v", res.Messages)
	}
	log, err := repo.Log(ctx, "main", tract.LogOptions{Type: plan, Role: tract.RoleUser})
	if err != nil || len(log) != 1 || log[0].Hash != c.Hash {
		t.Fatalf("log --type x-plan --role user = %+v, %v", log, err)
	}
	found, err := repo.Find(ctx, "main", tract.FindOptions{Text: "steps", Type: plan})
	if err != nil || len(found) != 1 || found[0].Commit.Hash != c.Hash {
		t.Fatalf("find = %+v, %v", found, err)
	}
	for _, bad := range []tract.Content{
		{Type: "x-", Text: "x"}, {Type: "x-Plan", Text: "x"}, {Type: "x-_p", Text: "x"}, {Type: plan, Role: tract.RoleTool, Text: "x"},
	} {
		if _, err := repo.Commit(ctx, "main", tract.CommitRequest{Content: bad}); err == nil {
			t.Fatalf("committed %+v", bad)
		}
	}
	if _, err := tract.CustomType("Bad Name"); err == nil {
		t.Fatal("CustomType accepted a bad name")
	}

	var exp strings.Builder
	if _, err := repo.Export(ctx, &exp, tract.ExportOptions{Tract: "main"}); err != nil {
		t.Fatal(err)
	}
	p, err := tract.ParseExport(strings.NewReader(exp.String()))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "other.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other := tract.New(st, tract.Options{})
	if _, err := other.ImportExport(ctx, p); err != nil {
		t.Fatal(err)
	}
	again, err := other.Compile(ctx, "main", tract.CompileOptions{})
	if err != nil || len(again.Messages) != 2 || again.Messages[0].Type != plan || again.Tokens != res.Tokens {
		t.Fatalf("compile after export and import = %+v, %v", again, err)
	}
}
