// Package release builds lineage's release: for each platform lineage
// ships for, a static binary (CGO_ENABLED=0, -trimpath, no symbol table)
// packed with the README into an archive (.tar.gz, .zip for Windows), an
// SPDX SBOM of what that binary was built from (its Go build info: the
// module, every dependency and the Go release), and one checksums.txt of
// SHA-256 sums in the format sha256sum -c reads. It only writes files into
// a directory: publishing them is someone else's step.
//
// Archives are reproducible: every entry carries the time Options.Time
// gives (the release commit's), owner 0 and fixed modes, so two builds of
// one commit with one Go release give the same bytes.
package release
