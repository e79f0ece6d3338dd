#!/usr/bin/env bash
# Writes a `go test -overlay` file into $1 that makes two functions of Go's
# os package behave under Wine 8.0 as they do on Windows, for the Windows
# test run only (never for a shipped binary):
# - RemoveAll: Go's Windows version walks with NtOpenFile-relative calls that
#   Wine 8.0 does not implement ("unlinkat … Invalid function"); the overlay
#   makes os.RemoveAll the portable fallback Go already has
#   (removeall_noat.go; Root.RemoveAll keeps the relative walk).
# - Root.Remove (and so Root.RemoveAll and the lock files' removal): the
#   same missing call (NtSetInformationFile's FileDispositionInformationEx,
#   Windows 10 1607+) answers "Invalid function" instead of a status Go
#   falls back on; the overlay makes Go's deleteat take the fallback it has
#   for older Windows and FAT32 (internal/syscall/windows.TestDeleteatFallback).
# - Symlink: Wine reports success and creates nothing; the overlay makes it
#   fail with ERROR_PRIVILEGE_NOT_HELD, as it does for a Windows user without
#   the symlink privilege, so tests that need symlinks skip with that reason.
# The patched files are made from this Go's own sources with sed.
set -euo pipefail
out=$1
goroot=$(go env GOROOT)
mkdir -p "$out"
sed 's#^func removeAll(path string) error {$#func removeAllAtUnderWine(path string) error {#' "$goroot/src/os/removeall_at.go" > "$out/removeall_at.go"
sed 's#^//go:build (js \&\& wasm) || plan9$#//go:build (js \&\& wasm) || plan9 || windows#' "$goroot/src/os/removeall_noat.go" > "$out/removeall_noat.go"
sed 's#^func Symlink(oldname, newname string) error {$#func Symlink(oldname, newname string) error {\n\treturn \&LinkError{"symlink", oldname, newname, syscall.ERROR_PRIVILEGE_NOT_HELD}\n}\n\nfunc symlinkUnderWine(oldname, newname string) error {#' "$goroot/src/os/file_windows.go" > "$out/file_windows.go"
sed 's#^var TestDeleteatFallback bool$#var TestDeleteatFallback = true // under Wine 8.0: see .ci/wine/overlay.sh#' "$goroot/src/internal/syscall/windows/at_windows.go" > "$out/at_windows.go"
grep -q '^func removeAllAtUnderWine' "$out/removeall_at.go"
grep -q 'plan9 || windows$' "$out/removeall_noat.go"
grep -q 'func symlinkUnderWine' "$out/file_windows.go"
grep -q '^var TestDeleteatFallback = true' "$out/at_windows.go"
cat > "$out/overlay.json" <<JSON
{"Replace": {
  "$goroot/src/os/removeall_at.go": "$out/removeall_at.go",
  "$goroot/src/os/removeall_noat.go": "$out/removeall_noat.go",
  "$goroot/src/os/file_windows.go": "$out/file_windows.go",
  "$goroot/src/internal/syscall/windows/at_windows.go": "$out/at_windows.go"
}}
JSON
