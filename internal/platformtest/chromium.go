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

// BrowserTempDir is a temporary directory with a short path, for the
// browser's own TMPDIR (chromedp.Env("TMPDIR="+dir)): Chromium puts its
// singleton socket there, and a Unix socket's path is limited to about 100
// bytes, which a long TMPDIR (macOS's /var/folders/…/T/, or a test's own
// temporary directory below it) exceeds; the browser then fails to start.
// It is made under /tmp where that exists, else under the system's
// temporary directory, and removed when the test ends.
func BrowserTempDir(t interface {
	TB
	Cleanup(func())
}) string {
	t.Helper()
	base := ""
	if fi, err := os.Stat("/tmp"); err == nil && fi.IsDir() {
		base = "/tmp"
	}
	dir, err := os.MkdirTemp(base, "lineage-browser-")
	if err != nil {
		t.Fatalf("browser temporary directory: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
