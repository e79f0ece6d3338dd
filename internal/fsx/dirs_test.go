package fsx

import "testing"

func TestUserDirsPerOS(t *testing.T) {
	full := map[string]string{
		"HOME":            "/home/me",
		"USERPROFILE":     `C:\Users\Me`,
		"APPDATA":         `C:\Users\Me\AppData\Roaming`,
		"LOCALAPPDATA":    `C:\Users\Me\AppData\Local`,
		"XDG_CONFIG_HOME": "/xdg/config",
		"XDG_STATE_HOME":  "/xdg/state",
	}
	with := func(over map[string]string) func(string) string {
		return func(k string) string {
			if v, ok := over[k]; ok {
				return v
			}
			return full[k]
		}
	}
	tests := []struct {
		name        string
		rules       Rules
		env         map[string]string
		home        string
		config      string
		state       string
		configError string
		stateError  string
	}{
		{name: "linux xdg", rules: Unix, home: "/home/me", config: "/xdg/config", state: "/xdg/state"},
		{name: "linux default", rules: Unix, env: map[string]string{"XDG_CONFIG_HOME": "", "XDG_STATE_HOME": ""},
			home: "/home/me", config: "/home/me/.config", state: "/home/me/.local/state"},
		{name: "linux relative xdg ignored", rules: Unix, env: map[string]string{"XDG_CONFIG_HOME": "rel", "XDG_STATE_HOME": "./s"},
			home: "/home/me", config: "/home/me/.config", state: "/home/me/.local/state"},
		{name: "linux no home", rules: Unix, env: map[string]string{"HOME": "", "XDG_STATE_HOME": ""},
			config: "/xdg/config", stateError: "$HOME is not set"},
		{name: "darwin", rules: Darwin, home: "/home/me",
			config: "/home/me/Library/Application Support", state: "/home/me/Library/Application Support"},
		{name: "darwin relative home", rules: Darwin, env: map[string]string{"HOME": "me"}, home: "me",
			configError: `$HOME is not an absolute path: "me"`, stateError: `$HOME is not an absolute path: "me"`},
		{name: "windows", rules: Windows, home: `C:\Users\Me`,
			config: `C:\Users\Me\AppData\Roaming`, state: `C:\Users\Me\AppData\Local`},
		{name: "windows HOME is not the home", rules: Windows, env: map[string]string{"USERPROFILE": "", "LOCALAPPDATA": ""},
			home: "", config: `C:\Users\Me\AppData\Roaming`, stateError: "%LOCALAPPDATA% is not set"},
		{name: "windows drive-relative", rules: Windows, env: map[string]string{"APPDATA": `C:AppData`},
			home: `C:\Users\Me`, configError: `%APPDATA% is not an absolute path: "C:AppData"`, state: `C:\Users\Me\AppData\Local`},
	}
	for _, tt := range tests {
		getenv := with(tt.env)
		if got := tt.rules.HomeDir(getenv); got != tt.home {
			t.Errorf("%s: HomeDir = %q, want %q", tt.name, got, tt.home)
		}
		check := func(what string, got string, err error, want, wantErr string) {
			if wantErr != "" {
				if err == nil || err.Error() != wantErr {
					t.Errorf("%s: %s error = %v, want %q", tt.name, what, err, wantErr)
				}
				return
			}
			if err != nil || got != want {
				t.Errorf("%s: %s = %q, %v; want %q", tt.name, what, got, err, want)
			}
		}
		got, err := tt.rules.ConfigDir(getenv)
		check("ConfigDir", got, err, tt.config, tt.configError)
		got, err = tt.rules.StateDir(getenv)
		check("StateDir", got, err, tt.state, tt.stateError)
	}
}
