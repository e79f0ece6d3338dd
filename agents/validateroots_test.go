package agents

import "testing"

func TestValidateRootsStaysInside(t *testing.T) {
	for root, ok := range map[string]bool{
		".clia/agents": true, "a/b/": true, "a/../b": true,
		"": false, ".": false, "..": false, "../x": false, "a/../../b": false, "/abs": false,
	} {
		err := ValidateRoots([]string{root})
		if (err == nil) != ok {
			t.Errorf("ValidateRoots(%q) = %v, want ok=%v", root, err, ok)
		}
	}
}
