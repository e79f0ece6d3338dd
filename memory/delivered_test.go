package memory

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Delivered reads back the lines Deliver wrote, a memory of several lines
// included, from a hook answer that holds other text around the block.
func TestDeliveredReadsTheBlockBack(t *testing.T) {
	ms := []Memory{
		{ID: "a1", Scope: Project, Source: "lineage", Text: "use tabs", Harness: "claude"},
		{ID: "b2", Scope: User, Source: "lineage", Text: "two\nlines", Harness: "codex"},
	}
	d, err := Deliver(Candidates{Lineage: ms}, DeliverOptions{MaxBytes: 4096, Harness: "gemini"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Sent) != 2 {
		t.Fatalf("sent %d memories, want 2", len(d.Sent))
	}
	var want []string
	for _, m := range d.Sent {
		want = append(want, Line(m))
	}
	got := Delivered("AGENTS.md in this session:\n- a\n\n" + d.Text + "\nafter")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Delivered (-want +got):\n%s", diff)
	}
	if got := Delivered("no block here\n- not a memory"); got != nil {
		t.Errorf("text without a block: %q", got)
	}
}
