package sqlite_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/agentlineage/lineage/tract"
)

func TestZZPages(t *testing.T) {
	if os.Getenv("ZZEXP") == "" {
		t.Skip()
	}
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "lineage.db")
	s, r := createRepo(t, p)
	defer s.Close()
	reqs := make([]tract.CommitRequest, 10000)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("message ", i, " the quick brown fox")}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 3; k++ {
		if _, err := s.DB().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("one more ", k)}}); err != nil {
			t.Fatal(err)
		}
		wal, _ := os.ReadFile(p + "-wal")
		pages := map[uint32]int{}
		for off := 32; off+24+4096 <= len(wal); off += 24 + 4096 {
			pages[binary.BigEndian.Uint32(wal[off:])]++
		}
		names := map[uint32]string{}
		rows, err := s.DB().QueryContext(ctx, `SELECT name, pageno FROM dbstat`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var n string
			var pg uint32
			rows.Scan(&n, &pg)
			names[pg] = n
		}
		rows.Close()
		var out []string
		for pg, c := range pages {
			out = append(out, fmt.Sprintf("%s(%d)x%d", names[pg], pg, c))
		}
		sort.Strings(out)
		t.Logf("commit %d: %d frames, %d pages: %v", k, (len(wal)-32)/(4096+24), len(pages), out)
	}
}
