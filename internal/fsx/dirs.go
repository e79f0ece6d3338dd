package fsx

import "fmt"

// The user's directories, read from the environment through getenv (the
// process's os.Getenv, or a command's injected environment) so that every
// OS's rule can be tested anywhere. lineage keeps its own files in a
// "lineage" folder under them.

// HomeDir returns the user's home directory as the OS names it, like
// os.UserHomeDir: %USERPROFILE% on Windows, $HOME elsewhere; "" when unset.
func (r Rules) HomeDir(getenv func(string) string) string {
	if r.OS == "windows" {
		return getenv("USERPROFILE")
	}
	return getenv("HOME")
}

// ConfigDir returns the base directory for the user's settings: on Windows
// %APPDATA% (roaming), on macOS ~/Library/Application Support, elsewhere
// $XDG_CONFIG_HOME or ~/.config.
func (r Rules) ConfigDir(getenv func(string) string) (string, error) {
	return r.userDir(getenv, "APPDATA", "XDG_CONFIG_HOME", ".config")
}

// StateDir returns the base directory for state that outlives a session but
// is not worth backing up or roaming (session state, caches of work done):
// on Windows %LOCALAPPDATA%, on macOS ~/Library/Application Support,
// elsewhere $XDG_STATE_HOME or ~/.local/state.
func (r Rules) StateDir(getenv func(string) string) (string, error) {
	return r.userDir(getenv, "LOCALAPPDATA", "XDG_STATE_HOME", ".local/state")
}

// userDir applies one directory's rule. A relative value is refused, as the
// XDG Base Directory specification says; on Windows and macOS, as everywhere
// else, a relative home would name a different directory in every cwd.
func (r Rules) userDir(getenv func(string) string, windowsVar, xdgVar, xdgDefault string) (string, error) {
	from := func(name, v, sub string) (string, error) {
		switch {
		case v == "":
			return "", fmt.Errorf("%s is not set", name)
		case !r.IsAbs(v):
			return "", fmt.Errorf("%s is not an absolute path: %q", name, v)
		}
		return r.Abs(v, sub), nil
	}
	switch r.OS {
	case "windows":
		return from("%"+windowsVar+"%", getenv(windowsVar), "")
	case "darwin", "ios":
		return from("$HOME", getenv("HOME"), "Library/Application Support")
	}
	if v := getenv(xdgVar); v != "" && r.IsAbs(v) {
		return r.Clean(v), nil
	}
	return from("$HOME", getenv("HOME"), xdgDefault)
}

// HomeDir is [Rules.HomeDir] under the host's rules.
func HomeDir(getenv func(string) string) string { return Host.HomeDir(getenv) }
