package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/tract/stores"
)

func vars(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// A store lineage finds upward from dir, for the default case.
func withStore(t *testing.T) (dir, found string) {
	t.Helper()
	dir = t.TempDir()
	found = stores.Default(dir)
	if err := os.MkdirAll(filepath.Dir(found), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(found, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	return sub, found
}

func TestStoreURLFlagThenEnvThenFound(t *testing.T) {
	dir, found := withStore(t)
	tests := []struct {
		name, env, flag, want string
	}{
		{"flag wins", "env.db", "flag.db", "flag.db"},
		{"env without flag", "env.db", "", "env.db"},
		{"env trimmed", "  env.db\n", "", "env.db"},
		{"space only is unset", " \t", "", found},
		{"nothing set: found upward", "", "", found},
	}
	for _, tt := range tests {
		h := Read(vars(EnvStore, tt.env), dir, nil)
		got, err := h.StoreURL(tt.flag, dir)
		if err != nil || got != tt.want {
			t.Errorf("%s: StoreURL = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	if _, err := Read(nil, t.TempDir(), nil).StoreURL("", t.TempDir()); !errors.Is(err, ErrNoStore) {
		t.Errorf("no store anywhere: %v, want ErrNoStore", err)
	}
}

func TestNewStoreURLAndStoreSettingTrimTheSame(t *testing.T) {
	dir := t.TempDir()
	h := Read(vars(EnvStore, " sqlite:x.db "), dir, nil)
	if got := h.NewStoreURL("", dir); got != "sqlite:x.db" {
		t.Errorf("NewStoreURL = %q", got)
	}
	if got := h.StoreSetting(""); got != "sqlite:x.db" {
		t.Errorf("StoreSetting = %q", got)
	}
	if got := h.NewStoreURL("f.db", dir); got != "f.db" {
		t.Errorf("flag: NewStoreURL = %q", got)
	}
	if got := Read(vars(EnvStore, "  "), dir, nil).NewStoreURL("", dir); got != stores.Default(dir) {
		t.Errorf("default: NewStoreURL = %q", got)
	}
}

func TestTractNameFlagThenEnvThenMain(t *testing.T) {
	for _, tt := range []struct{ env, flag, want string }{
		{"env", "flag", "flag"}, {" env ", "", "env"}, {"", "", "main"}, {"   ", "", "main"},
	} {
		if got := Read(vars(EnvTract, tt.env), "/", nil).TractName(tt.flag); got != tt.want {
			t.Errorf("env %q flag %q: %q, want %q", tt.env, tt.flag, got, tt.want)
		}
	}
}

func TestClockEnvThenInjectedThenTimeNow(t *testing.T) {
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	injected := func() time.Time { return time.Unix(42, 0) }
	now, err := Read(vars(EnvNow, " 2026-01-02T03:04:05Z "), "/", injected).Clock()
	if err != nil || !now().Equal(fixed) {
		t.Fatalf("LINEAGE_NOW: %v", err)
	}
	if now, _ := Read(nil, "/", injected).Clock(); !now().Equal(time.Unix(42, 0)) {
		t.Errorf("injected clock not used: %v", now())
	}
	if now, _ := Read(nil, "/", nil).Clock(); time.Since(now()) > time.Hour {
		t.Errorf("default clock is not time.Now: %v", now())
	}
	_, err = Read(vars(EnvNow, "yesterday"), "/", nil).Clock()
	var ve *VariableError
	if !errors.As(err, &ve) || err.Error() != `LINEAGE_NOW "yesterday": want an RFC 3339 time such as 2026-01-02T03:04:05Z` {
		t.Errorf("bad LINEAGE_NOW: %v", err)
	}
}

func TestStatePathIsOneJoin(t *testing.T) {
	// The state directory's variable on every OS: XDG_STATE_HOME (Linux),
	// %LOCALAPPDATA% (Windows), $HOME/Library/Application Support (macOS).
	home := t.TempDir()
	state := filepath.Join(home, ".state")
	env := vars("XDG_STATE_HOME", state, "LOCALAPPDATA", state, "HOME", home)
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		state = filepath.Join(home, "Library", "Application Support")
	}
	h := Read(env, "/", nil)
	if got, want := h.StatePath("sessions"), filepath.Join(state, "lineage", "sessions"); got != want {
		t.Errorf("StatePath = %q, want %q", got, want)
	}
	if h.Skills("/").CacheDir != filepath.Join(state, "lineage", "skills-cache") {
		t.Errorf("skills cache %q", h.Skills("/").CacheDir)
	}
	// No home and no XDG_STATE_HOME: no state directory, and every path is "".
	none := Read(vars(), "/", nil)
	if got := none.StatePath("sessions"); got != "" || none.StateDirError() == nil {
		t.Errorf("without a state directory: %q, %v", got, none.StateDirError())
	}
}

func TestSkillsFlagThenEnvThenDefault(t *testing.T) {
	cwd := t.TempDir()
	abs := filepath.Join(t.TempDir(), "b") // absolute on every OS ("/abs/b" is not on Windows)
	on := Read(vars(EnvSkillsUser, " true ", EnvSkillsPath, " a "+string(filepath.ListSeparator)+" "+string(filepath.ListSeparator)+abs), cwd, nil).Skills(cwd)
	if !on.User || !on.UserSet || len(on.Warnings) != 0 {
		t.Errorf("LINEAGE_SKILLS_USER=true: %+v", on)
	}
	if want := []string{filepath.Join(cwd, "a"), abs}; !slices.Equal(on.Extra, want) {
		t.Errorf("Extra = %q, want %q", on.Extra, want)
	}
	for _, tt := range []struct {
		s             Skills
		flag, changed bool
		want          bool
	}{
		{on, false, true, false}, // --user=false given: the flag wins
		{on, false, false, true}, // flag left out: the variable
		{Skills{}, true, false, true},
		{Skills{}, false, false, false}, // neither: no
	} {
		if got := tt.s.SkillsUser(tt.flag, tt.changed); got != tt.want {
			t.Errorf("%+v flag %v changed %v: %v", tt.s, tt.flag, tt.changed, got)
		}
	}
	bad := Read(vars(EnvSkillsUser, "maybe"), cwd, nil).Skills(cwd)
	if bad.UserSet || len(bad.Warnings) != 1 || bad.Warnings[0] != `ignoring LINEAGE_SKILLS_USER="maybe": want 1, true, 0 or false` {
		t.Errorf("bad LINEAGE_SKILLS_USER: %+v", bad)
	}
}

func TestInstructionsFromEnvReadOnce(t *testing.T) {
	h := Read(vars(instructions.EnvMaxFiles, "3", instructions.EnvEnabled, "nope"), "/", nil)
	s, warnings := h.Instructions()
	if len(warnings) != 1 || s.Initial == nil || s.Initial.MaxFiles == nil || *s.Initial.MaxFiles != 3 {
		t.Errorf("CODELIA_AGENTS_MAX_FILES=3: %+v %v", s.Initial, warnings)
	}
}
