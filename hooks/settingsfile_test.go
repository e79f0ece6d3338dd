package hooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Ten concurrent installs with different commands: every one is kept.
func TestConcurrentInstallsLoseNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "settings.json")
	locks := filepath.Join(dir, "locks")
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for i := range 10 {
		wg.Go(func() {
			_, err := EditSettingsFile(context.Background(), path, locks, true, func(before []byte, _ bool) ([]byte, error) {
				return Claude.Install(before, fmt.Sprintf("/opt/tool%d/run", i), Flags{})
			})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if n := strings.Count(string(data), fmt.Sprintf(`"/opt/tool%d/run hook claude"`, i)); n != 3 {
			t.Errorf("install %d: %d entries, want 3 (SessionStart, SubagentStart, PostToolUse)", i, n)
		}
	}
}
