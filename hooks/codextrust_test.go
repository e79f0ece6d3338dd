package hooks

import "testing"

// The trust hashes are the ones Codex CLI 0.169 computes (its app-server's
// hooks/list currentHash) for these hooks.json entries.
func TestCodexHookHashIsCodexs(t *testing.T) {
	matcher := "apply_patch"
	for _, tt := range []struct {
		event   string
		matcher *string
		command string
		want    string
	}{
		{"SessionStart", nil, "/opt/lineage hook codex", "sha256:3195a40f9dfaad3be110650658839058e11b4ffacc02bb5d207fca28f9ebd074"},
		{"PostToolUse", &matcher, "/opt/lineage hook codex", "sha256:184c952e4a7105203585e107f48e386a96f452974dd25f2208aa5bf87fb9dcbb"},
		{"SessionStart", nil, "lineage hook codex", "sha256:8c16c64ed18480fdf71b01006a6304621c54c9d261ab4b81b27e42216ccc9f13"},
		{"PostToolUse", &matcher, "lineage hook codex", "sha256:9ec77060f7a51cabe820d2662498b225e8830b1f307096c91cab3f2b5980b913"},
	} {
		if got := codexHookHash(tt.event, tt.matcher, codexHookEntry{Type: "command", Command: tt.command}); got != tt.want {
			t.Errorf("%s %q: hash %s, want %s", tt.event, tt.command, got, tt.want)
		}
	}
	for q, want := range map[string]string{`"a\\b:x"`: `a\b:x`, `'C:\x\hooks.json:stop:0:0'`: `C:\x\hooks.json:stop:0:0`} {
		if got, ok := tomlKey(q); !ok || got != want {
			t.Errorf("tomlKey(%s) = %q, %v; want %q", q, got, ok, want)
		}
	}
}
