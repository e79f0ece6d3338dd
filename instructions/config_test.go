package instructions

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Settings
		wantErr string
	}{
		{name: "empty object", in: `{}`, want: Settings{}},
		{name: "everything", in: `{"enabled": false, "root": {"projectRootOverride": "sub", "markers": [".git"], "stopAtFsRoot": false},
			"initial": {"maxFiles": 3, "maxBytes": 100}, "resolver": {"enabled": true, "maxFilesPerResolve": 2}, "fileNames": ["AGENTS.md", "CLAUDE.md"]}`,
			want: Settings{Enabled: ptr(false), Root: &RootSettings{ProjectRootOverride: ptr("sub"), Markers: []string{".git"}, StopAtFsRoot: ptr(false)},
				Initial: &InitialSettings{MaxFiles: ptr(3), MaxBytes: ptr(100)}, Resolver: &ResolverSettings{Enabled: ptr(true), MaxFilesPerResolve: ptr(2)},
				FileNames: []string{"AGENTS.md", "CLAUDE.md"}}},
		{name: "unknown top-level key", in: `{"enabled": true, "bogus": 1}`, wantErr: `unknown key "bogus"`},
		{name: "unknown nested key", in: `{"root": {"marker": [".git"]}}`, wantErr: `unknown key "root.marker"`},
		{name: "wrong type", in: `{"initial": {"maxFiles": "3"}}`, wantErr: `initial.maxFiles: expected a whole number`},
		{name: "fraction", in: `{"initial": {"maxBytes": 1.5}}`, wantErr: `initial.maxBytes: expected a whole number`},
		{name: "zero", in: `{"initial": {"maxFiles": 0}}`, wantErr: `initial.maxFiles: must be a whole number > 0, got 0`},
		{name: "negative", in: `{"resolver": {"maxFilesPerResolve": -1}}`, wantErr: `resolver.maxFilesPerResolve: must be a whole number > 0`},
		{name: "bool as string", in: `{"enabled": "yes"}`, wantErr: `enabled: expected true or false`},
		{name: "empty markers", in: `{"root": {"markers": []}}`, wantErr: `root.markers: must not be empty`},
		{name: "blank marker", in: `{"root": {"markers": [".git", " "]}}`, wantErr: `root.markers[1]: must not be empty`},
		{name: "file name with a slash", in: `{"fileNames": ["docs/AGENTS.md"]}`, wantErr: `fileNames[0]: "docs/AGENTS.md" is not a plain file name`},
		{name: "empty override", in: `{"root": {"projectRootOverride": "  "}}`, wantErr: `root.projectRootOverride: must not be empty`},
		{name: "duplicate key", in: `{"enabled": true, "enabled": false}`, wantErr: `duplicate key "enabled"`},
		{name: "syntax error names line and column", in: "{\n  \"enabled\": tru\n}", wantErr: `line 2, column 17`},
		{name: "not an object", in: `[]`, wantErr: `expected an object`},
		{name: "marker not a string", in: `{"root": {"markers": [1]}}`, wantErr: `root.markers[0]: expected a string`},
		{name: "null file", in: `null`, wantErr: `expected an object, got null`},
		{name: "null bool", in: `{"enabled": null}`, wantErr: `enabled: must not be null`},
		{name: "null object", in: `{"root": null}`, wantErr: `root: must not be null`},
		{name: "null number", in: `{"initial": {"maxBytes": null}}`, wantErr: `initial.maxBytes: must not be null`},
		{name: "null array", in: `{"fileNames": null}`, wantErr: `fileNames: must not be null`},
		{name: "null array element", in: `{"root": {"markers": [".git", null]}}`, wantErr: `root.markers[1]`},
		{name: "null string", in: `{"root": {"projectRootOverride": null}}`, wantErr: `root.projectRootOverride: must not be null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConfig([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func TestSettingsFromEnv(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		want     Settings
		warnings []string
	}{
		{name: "nothing set", env: nil, want: Settings{}},
		{name: "set but blank counts as unset", env: map[string]string{EnvRoot: "  ", EnvMarkers: "", EnvMaxFiles: " "}, want: Settings{}},
		{name: "markers trimmed, empties dropped", env: map[string]string{EnvMarkers: " .git , ,.hg,"},
			want: Settings{Root: &RootSettings{Markers: []string{".git", ".hg"}}}},
		{name: "markers that are all empty count as unset", env: map[string]string{EnvMarkers: " , ,"}, want: Settings{}},
		{name: "root trimmed", env: map[string]string{EnvRoot: " /srv/repo "}, want: Settings{Root: &RootSettings{ProjectRootOverride: ptr("/srv/repo")}}},
		{name: "booleans in any case", env: map[string]string{EnvEnabled: "FALSE", EnvResolverEnabled: "1"},
			want: Settings{Enabled: ptr(false), Resolver: &ResolverSettings{Enabled: ptr(true)}}},
		{name: "numbers", env: map[string]string{EnvMaxFiles: "4", EnvMaxBytes: " 1024 ", EnvMaxPerResolve: "2"},
			want: Settings{Initial: &InitialSettings{MaxFiles: ptr(4), MaxBytes: ptr(1024)}, Resolver: &ResolverSettings{MaxFilesPerResolve: ptr(2)}}},
		{name: "unparsable values are ignored with a warning naming the variable",
			env:  map[string]string{EnvEnabled: "yes", EnvMaxFiles: "0", EnvMaxBytes: "1e3", EnvMaxPerResolve: "-2", EnvResolverEnabled: "2"},
			want: Settings{},
			warnings: []string{
				`ignoring CODELIA_AGENTS_ENABLED="yes": want 1, true, 0 or false`,
				`ignoring CODELIA_AGENTS_RESOLVER_ENABLED="2": want 1, true, 0 or false`,
				`ignoring CODELIA_AGENTS_MAX_FILES_PER_RESOLVE="-2": want a whole number > 0`,
				`ignoring CODELIA_AGENTS_INITIAL_MAX_FILES="0": want a whole number > 0`,
				`ignoring CODELIA_AGENTS_INITIAL_MAX_BYTES="1e3": want a whole number > 0`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warnings := SettingsFromEnv(envOf(tt.env))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildConfigPrecedence(t *testing.T) {
	file := Settings{Enabled: ptr(true), Root: &RootSettings{Markers: []string{".file"}, StopAtFsRoot: ptr(false)},
		Initial: &InitialSettings{MaxFiles: ptr(5), MaxBytes: ptr(500)}, Resolver: &ResolverSettings{MaxFilesPerResolve: ptr(5)}}
	env := Settings{Root: &RootSettings{Markers: []string{".env"}}, Initial: &InitialSettings{MaxFiles: ptr(6)}}
	flags := Settings{Initial: &InitialSettings{MaxFiles: ptr(7)}, FileNames: []string{"RULES.md"}}
	tests := []struct {
		name   string
		layers []Settings
		check  func(Config) string
	}{
		{"defaults", nil, func(c Config) string { return cmp.Diff(DefaultConfig(), c) }},
		{"file over defaults", []Settings{file}, func(c Config) string {
			return cmp.Diff([]any{[]string{".file"}, false, 5, 500, 5, true}, []any{c.Root.Markers, c.Root.StopAtFsRoot, c.Initial.MaxFiles, c.Initial.MaxBytes, c.Resolver.MaxFilesPerResolve, c.Resolver.Enabled})
		}},
		{"env over file", []Settings{file, env}, func(c Config) string {
			return cmp.Diff([]any{[]string{".env"}, 6, 500}, []any{c.Root.Markers, c.Initial.MaxFiles, c.Initial.MaxBytes})
		}},
		{"flags over env", []Settings{file, env, flags}, func(c Config) string {
			return cmp.Diff([]any{[]string{".env"}, 7, []string{"RULES.md"}}, []any{c.Root.Markers, c.Initial.MaxFiles, c.FileNames})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := tt.check(BuildConfig("/w", tt.layers...)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The upstream TypeScript lets an unset environment variable wipe a value
// set in code; an unset (or blank) variable must leave a lower source alone.
func TestBeyondReferenceUnsetEnvKeepsConfiguredValue(t *testing.T) {
	file, err := ParseConfig([]byte(`{"root": {"projectRootOverride": "/srv/repo", "markers": [".hg"]}, "initial": {"maxFiles": 3}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, env := range []map[string]string{nil, {EnvRoot: "", EnvMarkers: " ", EnvMaxFiles: ""}, {EnvMarkers: ",", EnvMaxFiles: "nope"}} {
		fromEnv, _ := SettingsFromEnv(envOf(env))
		c := BuildConfig("/w", file, fromEnv, Settings{})
		if c.Root.ProjectRootOverride != filepath.FromSlash("/srv/repo") || !cmp.Equal(c.Root.Markers, []string{".hg"}) || c.Initial.MaxFiles != 3 {
			t.Errorf("env %v erased configured values: %+v", env, c)
		}
	}
}

func TestRelativeOverrideIsAbsoluteAgainstCwd(t *testing.T) {
	tests := []struct{ cwd, override, want string }{
		{"/work/repo/sub", "..", "/work/repo"},
		{"/work/repo", "./lib/", "/work/repo/lib"},
		{"/work/repo", "/abs//root/", "/abs/root"},
	}
	for _, tt := range tests {
		c := BuildConfig(tt.cwd, Settings{Root: &RootSettings{ProjectRootOverride: ptr(tt.override)}})
		if want := filepath.FromSlash(tt.want); c.Root.ProjectRootOverride != want {
			t.Errorf("override %q from %q = %q, want %q", tt.override, tt.cwd, c.Root.ProjectRootOverride, tt.want)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"enabled": true, "root": {"markers": [".git"]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseConfig(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		// Whatever parses is valid: layering it never yields a cap <= 0 or
		// an empty name list.
		c := BuildConfig("/w", s)
		if c.Initial.MaxFiles <= 0 || c.Initial.MaxBytes <= 0 || c.Resolver.MaxFilesPerResolve <= 0 {
			t.Fatalf("non-positive cap from %q: %+v", data, c)
		}
		if len(c.FileNames) == 0 || len(c.Root.Markers) == 0 {
			t.Fatalf("empty list from %q: %+v", data, c)
		}
		for _, n := range c.FileNames {
			if strings.ContainsRune(n, '/') {
				t.Fatalf("file name with a slash from %q: %q", data, n)
			}
		}
	})
}
