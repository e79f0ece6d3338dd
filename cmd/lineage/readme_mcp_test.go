package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The README's MCP section names every tool the server lists, and no tool
// it does not: the list is written by hand, so it is checked against
// `lineage mcp`'s own tools/list.
func TestREADMEListsEveryMCPTool(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := readmeTools(string(readme))
	if len(documented) == 0 {
		t.Fatal("README: no \"Tools mirror\" paragraph with tool names")
	}
	listed := serverTools(t, lineageBinary(t))
	for _, name := range listed {
		if !slices.Contains(documented, name) {
			t.Errorf("README does not name MCP tool %s", name)
		}
	}
	for _, name := range documented {
		if !slices.Contains(listed, name) {
			t.Errorf("README names MCP tool %s, which the server does not list", name)
		}
	}
}

// readmeTools expands the `prefix_a|b|c` groups of the README paragraph
// that starts "Tools mirror" into tool names, sorted.
func readmeTools(readme string) []string {
	start := strings.Index(readme, "Tools mirror")
	if start < 0 {
		return nil
	}
	para := readme[start:]
	if end := strings.Index(para, "; resources"); end >= 0 {
		para = para[:end]
	}
	var out []string
	for _, m := range regexp.MustCompile("`([a-z]+)_([a-z_|]+)`").FindAllStringSubmatch(para, -1) {
		for _, rest := range strings.Split(m[2], "|") {
			out = append(out, m[1]+"_"+rest)
		}
	}
	slices.Sort(out)
	return out
}

// serverTools are the tool names `lineage mcp` lists over stdio, sorted.
func serverTools(t *testing.T, bin string) []string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(bin, "mcp", "--cwd", dir)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LINEAGE_STORE="+dir+"/lineage.db")
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"readme-test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("lineage mcp: %v", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var resp struct {
			ID     int `json:"id"`
			Result struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &resp) != nil || resp.ID != 2 {
			continue
		}
		var names []string
		for _, tool := range resp.Result.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		return names
	}
	t.Fatalf("lineage mcp answered no tools/list: %s", out)
	return nil
}
