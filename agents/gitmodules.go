package agents

import (
	"bytes"
	"fmt"
	"sort"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// ParseGitmodules returns the path of every submodule declared in a
// .gitmodules file, parsed as git config (sections, quoting, '#' and ';'
// comments), in byte-wise order without duplicates or blanks.
func ParseGitmodules(data []byte) (paths []string, err error) {
	defer func() {
		// The config decoder is not ours; a panic on odd input must not be.
		if r := recover(); r != nil {
			paths, err = nil, fmt.Errorf("parse .gitmodules: %v", r)
		}
	}()
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
		return nil, fmt.Errorf("parse .gitmodules: %w", err)
	}
	seen := map[string]bool{}
	for _, s := range cfg.Sections {
		if !s.IsName("submodule") {
			continue
		}
		for _, sub := range s.Subsections {
			for _, p := range sub.OptionAll("path") {
				if p != "" && !seen[p] {
					seen[p] = true
					paths = append(paths, p)
				}
			}
		}
	}
	sort.Strings(paths)
	return paths, nil
}
