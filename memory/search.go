package memory

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/tract"
)

// Hit is a memory Search found, with its score: how many of the query's
// words its text holds.
type Hit struct {
	Memory
	Score int `json:"score"`
}

// Search finds the memories of w's scopes whose text holds every word of
// query, through the store's full-text index (as sessions find does):
// most occurrences first, then newest. limit keeps the best limit (0:
// all).
func Search(ctx context.Context, repo *tract.Repo, w Where, query string, limit int) ([]Hit, error) {
	words := tract.Words(query)
	if len(words) == 0 {
		return nil, &tract.ValidationError{Field: "query", Value: query, Reason: "no word to search for"}
	}
	hits := []Hit{}
	if repo == nil {
		return hits, nil
	}
	ids := map[string]bool{}
	for _, s := range w.Scopes() {
		t, err := repo.Tract(ctx, TractName(s))
		if errors.Is(err, tract.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		ids[t.ID] = true
	}
	found := map[tract.Hash]bool{}
	for id := range ids {
		rows, err := repo.Store().Search(ctx, tract.SearchQuery{Tract: id, Words: words, Type: ContentType})
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			found[r.Commit.Hash] = true
			if r.Commit.EditTarget != "" {
				found[r.Commit.EditTarget] = true
			}
		}
	}
	if len(found) == 0 {
		return hits, nil
	}
	ms, err := List(ctx, repo, w)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		// The index holds every version of a text; only the current one
		// counts.
		if !found[m.Commit] {
			continue
		}
		if n := tract.CountWords(m.Text, words); n > 0 && holdsAll(m.Text, words) {
			hits = append(hits, Hit{Memory: m, Score: n})
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), b.Newest().Compare(a.Newest()), strings.Compare(string(a.Commit), string(b.Commit)))
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

func holdsAll(text string, words []string) bool {
	have := map[string]bool{}
	for _, w := range tract.Words(text) {
		have[w] = true
	}
	for _, w := range words {
		if !have[w] {
			return false
		}
	}
	return true
}
