package platformtest

import (
	"os"
	"os/exec"
)

// debianChromium is the browser binary behind Debian's /usr/bin/chromium.
// That launcher is a shell script that sources /etc/chromium.d/*; its
// dev-shm snippet compares `findmnt -o avail -T /dev/shm` with a number and
// breaks ("[: …: unexpected operator") where /dev/shm is mounted twice and
// findmnt prints two lines, as in some containers. The tests pass their own
// flags, so they start the binary itself and skip the launcher.
const debianChromium = "/usr/lib/chromium/chromium"

// Chromium finds a Chromium or Chrome binary for the browser tests; "" when
// the machine has none.
func Chromium() string {
	if fi, err := os.Stat(debianChromium); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return debianChromium
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}
