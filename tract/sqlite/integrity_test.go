package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/sqlite"
)

// TestCompileRefusesDamagedContent rewires a commit to another blob behind
// the store's back: compile must refuse it, naming the commit, cold and
// warm, instead of rendering bytes that do not match the hash.
func TestCompileRefusesDamagedContent(t *testing.T) {
	ctx := context.Background()
	db, r, _ := newDB(t)
	var hashes []tract.Hash
	for _, text := range []string{"one", "two"} {
		c, err := r.Commit(ctx, "main", tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Text: text}})
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, c.Hash)
	}
	raw, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE commits SET content_id = (SELECT content_id FROM commits WHERE hash = unhex(?)) WHERE hash = unhex(?)`,
		string(hashes[0]), string(hashes[1])); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*tract.Repo{r, tract.New(r.Store(), tract.Options{})} {
		_, err = r.CompileCold(ctx, "main", tract.CompileOptions{})
		var ie *tract.IntegrityError
		if !errors.As(err, &ie) || ie.Commit != hashes[1] || !errors.Is(err, tract.ErrDamaged) || !strings.Contains(err.Error(), hashes[1].Short()) {
			t.Fatalf("compile of a rewired commit: %v, want an integrity error naming %s", err, hashes[1].Short())
		}
	}
}

// TestVerifyReportsMalformedFile overwrites pages of a closed store: verify
// (and a read) report damage (tract.ErrDamaged, exit 3 in the CLI), not a
// plain failure.
func TestVerifyReportsMalformedFile(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "lineage.db")
	s, r := createRepo(t, p)
	reqs := make([]tract.CommitRequest, 2000)
	for i := range reqs {
		reqs[i] = tract.CommitRequest{Content: tract.Content{Type: tract.TypeMessage, Role: "user", Text: fmt.Sprint("message ", i, strings.Repeat(" padding", 20))}}
	}
	if _, err := r.Import(ctx, "main", reqs); err != nil {
		t.Fatal(err)
	}
	s.Close()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// Keep the header page, scribble over the middle of the file.
	for i := len(data) / 3; i < 2*len(data)/3; i++ {
		data[i] = 0xA5
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ro, err := sqlite.Open(ctx, p, sqlite.Options{ReadOnly: true})
	if err != nil {
		if !errors.Is(err, tract.ErrDamaged) {
			t.Fatalf("open of a damaged file: %v, want ErrDamaged", err)
		}
		return
	}
	defer ro.Close()
	_, err = tract.New(ro, tract.Options{}).Verify(ctx)
	if !errors.Is(err, tract.ErrDamaged) {
		t.Fatalf("verify of a damaged file: %v, want ErrDamaged", err)
	}
}
