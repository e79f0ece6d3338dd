package sessions

import (
	"context"
	"fmt"
	"testing"
)

func TestClaudeReadsEveryFixture(t *testing.T) {
	dir := unpack(t, "claude")
	for _, p := range transcripts(t, dir) {
		b, err := ClaudeReader{}.Read(context.Background(), Source{Harness: Claude, Path: p}, Cursor{})
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[Kind]int{}
		for _, r := range b.Records {
			kinds[r.Kind]++
		}
		fmt.Println(p[len(dir):], b.Session.ID, b.Session.Model, b.Session.Origin, len(b.Records), kinds, b.Skipped, len(b.Related))
	}
}
