package agents

import (
	"path/filepath"
	"slices"
	"testing"
)

// A report's findings come out in the same order on every OS: a finding
// about a directory before the findings about the files in it, as "/"
// sorts on Linux, also where the separator is "\" (which sorts after ":").
func TestReportSortsFindingsAlikeOnEveryOS(t *testing.T) {
	dir := filepath.Join("ws", ".clia", "agents", "tau")
	file := filepath.Join(dir, "b.agent.triad.json") + ": unknown schemaVersion"
	several := dir + ": several agent documents"
	other := filepath.Join(dir, "tau@ws.agenda.json") + ": no schemaVersion"
	r := Report{Warnings: []string{several, other, file}, Info: []string{"b", "a"}}
	got := r.Sorted()
	if want := []string{file, other, several}; !slices.Equal(got.Warnings, want) {
		t.Errorf("warnings %q, want %q", got.Warnings, want)
	}
	if !slices.Equal(got.Info, []string{"a", "b"}) || got.Errors == nil {
		t.Errorf("info %q, errors %v", got.Info, got.Errors)
	}
}
