// Command lineage loads AGENTS.md instructions, merges CLIA agent triads and
// keeps an LLM's context under version control. See README.md.
package main

import (
	"os"

	"github.com/agentlineage/lineage/internal/cli"
)

func main() {
	os.Exit(cli.Main())
}
