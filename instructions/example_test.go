package instructions_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentlineage/lineage/instructions"
)

// A session loads the chain from the root to the working directory once;
// resolving a path elsewhere names only the files the agent has not seen.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	repo := filepath.Join(dir, "repo")
	for name, body := range map[string]string{".git/HEAD": "", "AGENTS.md": "Root rules.", "api/AGENTS.md": "API rules.", "web/AGENTS.md": "Web rules."} {
		os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755)
		os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644)
	}
	cfg := instructions.BuildConfig(repo) // defaults: markers .codelia, .git, .jj
	s, initial := instructions.Start(instructions.Options{Config: cfg, Cwd: filepath.Join(repo, "api")})
	fmt.Println(initial.RootSource, len(initial.Files), "files loaded")
	for _, f := range s.Resolve("../web/index.ts").Files {
		rel, _ := filepath.Rel(repo, f.Path)
		fmt.Println(f.Reason, filepath.ToSlash(rel))
	}
	fmt.Println(len(s.Resolve("../web/index.ts").Files), "on the second call")
	// Output:
	// marker:.git 2 files loaded
	// new web/AGENTS.md
	// 0 on the second call
}
