package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The plugin itself, run by node on its hooks as opencode calls them: with
// a lineage that answers, the start joins the system prompt and the
// reminder the tool's output; with one that cannot run, nothing changes.
func TestOpencodePluginAppliesAnswersAndSurvivesFailure(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	dir := t.TempDir()
	answer := `process.stdin.resume();let d="";process.stdin.on("data",c=>d+=c);process.stdin.on("end",()=>{const e=JSON.parse(d);process.stdout.write(JSON.stringify({context:"ANSWER "+e.hook_event_name+" "+(e.agent_id||e.session_id)}))})`
	runner := `import { LineagePlugin } from "./plugin.mjs"
const hooks = await LineagePlugin({ directory: process.cwd() })
await hooks.event({ event: { type: "session.created", properties: { info: { id: "child", parentID: "s" } } } })
const out = { system: ["base"] }
await hooks["experimental.chat.system.transform"]({ sessionID: "s" }, out)
await hooks["experimental.chat.system.transform"]({ sessionID: "s" }, out)
const sub = { system: [] }
await hooks["experimental.chat.system.transform"]({ sessionID: "child" }, sub)
const tool = { output: "file text", title: "t", metadata: {} }
await hooks["tool.execute.after"]({ sessionID: "s", tool: "read", args: { filePath: "x" } }, tool)
console.log(JSON.stringify([out.system, sub.system, tool.output]))
`
	for _, c := range []struct{ program, want string }{
		{shellQuote(node) + " -e " + shellQuote(answer),
			`[["base","ANSWER session.start s","ANSWER session.start s"],["ANSWER session.start child"],"file text\n\nANSWER tool.execute.after s"]`},
		{shellQuote(filepath.Join(dir, "no-such-lineage")), `[["base"],[],"file text"]`},
	} {
		plugin, err := Opencode.Install(nil, c.program, Flags{})
		if err != nil {
			t.Fatal(err)
		}
		for name, text := range map[string]string{"plugin.mjs": string(plugin), "run.mjs": runner} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(node, "run.mjs")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != c.want {
			t.Errorf("plugin running %s: %v\n got %s\nwant %s", c.program, err, out, c.want)
		}
	}
}
