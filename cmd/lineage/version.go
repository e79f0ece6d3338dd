package main

import (
	"runtime/debug"
	"strings"
)

// version describes the build for --version: the module version, then the
// VCS revision it was built from ("-dirty" when the work tree had changes),
// the commit time and the Go release, e.g.
//
//	v1.2.0 (ecc9d5358330, 2026-11-23T17:39:06Z, go1.26.8)
//	v0.0.0-20261123173906-ecc9d5358330+dirty (ecc9d5358330-dirty, 2026-11-23T17:39:06Z, go1.26.8)
//	devel (go1.26.8)
//
// A build without VCS stamping (-buildvcs=false, or outside a checkout) has
// no revision to show.
func version(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, at string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	var details []string
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "-dirty"
		}
		details = append(details, rev)
	}
	if at != "" {
		details = append(details, at)
	}
	if info.GoVersion != "" {
		details = append(details, info.GoVersion)
	}
	if len(details) == 0 {
		return v
	}
	return v + " (" + strings.Join(details, ", ") + ")"
}
