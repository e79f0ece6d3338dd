package hooks

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
)

// FuzzCodexConfig: any config.toml is read without a panic, and
// lineage's [mcp_servers.lineage] table goes in and out leaving a file
// without one as it was.
func FuzzCodexConfig(f *testing.F) {
	for _, s := range []string{
		"model = \"m\"\nproject_doc_max_bytes = 100 # small\nproject_doc_fallback_filenames = [\"TEAM.md\", 'X.md']\n[features]\nhooks = false\n",
		"project_root_markers = [\".git\", \".hg\"]\n[mcp_servers.other]\ncommand = \"x\"\n",
		"[mcp_servers.lineage]\ncommand = \"/old\"\nargs = []\n[mcp_servers.lineage.env]\nA = \"1\"\n",
		"project_doc_max_bytes = 1_000\r\nproject_doc_fallback_filenames = [\"a\\\"b\"]",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := parseCodexConfig(strings.NewReader(s))
		if c.maxBytes < 0 {
			t.Fatalf("negative project_doc_max_bytes %d", c.maxBytes)
		}
		in, err := installMCPToml([]byte(s), "/opt/lineage", []string{"mcp"}, []string{"XDG_STATE_HOME"})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(in, []byte(tomlHeader+"\ncommand = \"/opt/lineage\"\n")) {
			t.Fatalf("install wrote no table:\n%s", in)
		}
		again, _ := installMCPToml(in, "/opt/lineage", []string{"mcp"}, []string{"XDG_STATE_HOME"})
		if !bytes.Equal(again, in) {
			t.Fatalf("second install changed the file:\n%s\n---\n%s", in, again)
		}
		if !strings.Contains(s, "[mcp_servers.lineage") && !strings.Contains(s, "mcp_servers.lineage") {
			out := uninstallMCPToml(in)
			// Every byte comes back, except blank space at the end (the
			// blank line install puts before its table goes with it).
			if strings.TrimRightFunc(string(out), unicode.IsSpace) != strings.TrimRightFunc(s, unicode.IsSpace) {
				t.Fatalf("install then uninstall:\n%q\nwant\n%q", out, s)
			}
		}
	})
}
