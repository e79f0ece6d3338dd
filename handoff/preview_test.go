package handoff

import (
	"context"
	"strings"
	"testing"
)

// TestPreviewIsComposeWithoutWriting: the preview's text and tokens are
// the handoff's (a harness target, no caller's summary) at every budget
// that fits, and it leaves no tract.
func TestPreviewIsComposeWithoutWriting(t *testing.T) {
	ctx := context.Background()
	for _, budget := range []int{0, 120} {
		repo, info := session(t, 4, true)
		o := options(t, repo, info)
		o.Budget = budget
		pv, err := PreviewOf(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := repo.Tract(ctx, pv.Tract); err == nil {
			t.Fatalf("budget %d: the preview made tract %s", budget, pv.Tract)
		}
		res, err := Compose(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if pv.Tract != res.Tract || pv.Summary != res.Summary || pv.Skipped == 0 ||
			strings.TrimSpace(pv.Text) != strings.TrimSpace(res.Context.Request.Text) || pv.Result.Tokens != res.Context.Tokens {
			t.Errorf("budget %d: preview %s %s %d tokens, skipped %d:\n%s\ncompose %s %s %d tokens:\n%s", budget, pv.Tract, pv.Summary, pv.Result.Tokens, pv.Skipped, pv.Text,
				res.Tract, res.Summary, res.Context.Tokens, res.Context.Request.Text)
		}
	}
}
