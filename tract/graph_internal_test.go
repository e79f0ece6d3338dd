package tract

import "testing"

// TestJumpDepth checks the closed form against the skew-binary rule it
// stands for: a commit jumps to its parent's jump's jump when the parent's
// two jumps span equal distances, else to its parent.
func TestJumpDepth(t *testing.T) {
	rule := []int64{0, 0}
	for d := int64(2); d < 100000; d++ {
		p := d - 1
		a := rule[p]
		b := rule[a]
		want := p
		if p-a == a-b {
			want = b
		}
		rule = append(rule, want)
		if got := jumpDepth(d); got != want {
			t.Fatalf("jumpDepth(%d) = %d, want %d", d, got, want)
		}
	}
	if jumpDepth(0) != 0 || jumpDepth(1) != 0 {
		t.Fatalf("roots jump to depth 0")
	}
}
