package journal

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/triad"
)

func transferTree(t *testing.T) (root string, opts Options) {
	root = tempRoot(t)
	write(t, root, map[string]string{
		".git": "<dir>", "libs/x/.git": "gitdir: x", "libs/y/.git": "gitdir: y",
		"libs/x/.clia/agents/s/s@x.agency.triad.json": `{"entries":[{"id":"b","timestamp":"2026-02-01T00:00:00Z"},{"id":"a","timestamp":"2026-01-01T00:00:00Z"},{"title":"no id"}]}`,
		".clia/agents/s/s@ws.agency.triad.json":       `{"entries":[{"id":"z","timestamp":"2026-03-01T00:00:00Z"},{"id":"old","timestamp":"2025-01-01T00:00:00Z"}],"other":true}`,
	})
	return root, Options{Agents: agents.Options{Path: root}, Now: fixedClock("2026-11-22T10:00:00Z")}
}

func TestTransferPromotesOnceWithProvenance(t *testing.T) {
	root, opts := transferTree(t)
	tr := Transfer{Slug: "s", From: "libs/x", To: "."}
	res, err := RunTransfer(context.Background(), opts, tr)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Copied) != 3 || len(res.Skipped) != 0 || res.File != filepath.Join(root, ".clia/agents/s/s@ws.agency.triad.json") {
		t.Fatalf("result %+v", res)
	}
	doc := readDoc(t, res.File)
	var ids []string
	for _, e := range doc.Get("entries").Items {
		ids = append(ids, e.Str("id")+"@"+e.Str("transferredFrom"))
	}
	want := []string{"z@", "b@libs/x", "a@libs/x", "old@", "@libs/x"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("entries %v, want %v", ids, want)
	}
	if doc.Get("other") == nil || doc.Str("updated") != "2026-11-22T10:00:00Z" {
		t.Errorf("document: %s", triad.Encode(doc, triad.EncodeOptions{Compact: true}))
	}
	before, _ := os.ReadFile(res.File)
	res, err = RunTransfer(context.Background(), opts, tr)
	if err != nil || len(res.Copied) != 0 || len(res.Skipped) != 3 {
		t.Fatalf("second transfer: %+v %v", res, err)
	}
	if after, _ := os.ReadFile(res.File); string(after) != string(before) {
		t.Error("a repeated transfer changed the destination")
	}
}

func TestTransferSelectionDryRunAndRefusals(t *testing.T) {
	root, opts := transferTree(t)
	dst := filepath.Join(root, ".clia/agents/s/s@ws.agency.triad.json")
	before, _ := os.ReadFile(dst)
	res, err := RunTransfer(context.Background(), opts, Transfer{Slug: "s", From: "libs/x", To: ".", IDs: []string{"a"}, DryRun: true})
	if err != nil || !reflect.DeepEqual(res.Copied, []string{"a"}) || !res.DryRun {
		t.Fatalf("dry run: %+v %v", res, err)
	}
	if after, _ := os.ReadFile(dst); string(after) != string(before) {
		t.Error("dry run wrote")
	}
	for _, tr := range []Transfer{
		{Slug: "s", From: "libs/x", To: "libs/y"},
		{Slug: "s", From: ".", To: "libs/x"},
		{Slug: "s", From: "libs/x", To: "libs/x"},
	} {
		if _, err := RunTransfer(context.Background(), opts, tr); err == nil || !strings.Contains(err.Error(), "not an ancestor domain") {
			t.Errorf("%+v: err = %v", tr, err)
		}
	}
	if _, err := RunTransfer(context.Background(), opts, Transfer{Slug: "s", From: "libs/x", To: ".", IDs: []string{"nope"}}); err == nil {
		t.Error("unknown id accepted")
	}
	if _, err := RunTransfer(context.Background(), opts, Transfer{Slug: "s", From: "libs/y", To: "."}); err == nil {
		t.Error("missing source agency accepted")
	}
}
