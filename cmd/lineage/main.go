// Command lineage loads AGENTS.md instructions, merges CLIA agent triads and
// keeps an LLM's context under version control. See README.md.
package main

import (
	"os"
	"runtime/debug"

	"github.com/agentlineage/lineage/internal/cli"
)

func main() {
	if cli.Version == "" {
		if info, ok := debug.ReadBuildInfo(); ok {
			cli.Version = version(info)
		}
	}
	os.Exit(cli.Main())
}
