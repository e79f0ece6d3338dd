package tract

import (
	"errors"
	"testing"
)

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		field string // "" when valid
	}{
		{"compile ok", CompileOptions{Budget: 0}.Validate(), ""},
		{"compile budget", CompileOptions{Budget: -1}.Validate(), "budget"},
		{"spawn ok", SpawnOptions{Purpose: "p"}.Validate(), ""},
		{"spawn snapshot budget", SpawnOptions{Purpose: "p", Mode: SpawnSnapshot, Budget: 10}.Validate(), ""},
		{"spawn mode", SpawnOptions{Purpose: "p", Mode: "copy"}.Validate(), "spawn mode"},
		{"spawn purpose", SpawnOptions{Purpose: " \n"}.Validate(), "purpose"},
		{"spawn budget", SpawnOptions{Purpose: "p", Budget: -5}.Validate(), "budget"},
		{"commit ok", CommitRequest{Content: Content{Type: TypeMessage, Text: "x"}, Priority: Important}.Validate(), ""},
		{"commit type", CommitRequest{Content: Content{Type: "memo", Text: "x"}}.Validate(), "type"},
		{"commit priority", CommitRequest{Content: Content{Type: TypeMessage, Text: "x"}, Priority: "urgent"}.Validate(), "priority"},
		{"log ok", LogOptions{N: 3}.Validate(), ""},
		{"log count", LogOptions{N: -1}.Validate(), "max-count"},
		{"merge ok", MergeOptions{Strategy: StrategyTheirs}.Validate(), ""},
		{"merge strategy", MergeOptions{Strategy: "mine"}.Validate(), "strategy"},
	}
	for _, tt := range tests {
		var ve *ValidationError
		switch {
		case tt.field == "" && tt.err != nil:
			t.Errorf("%s: %v, want valid", tt.name, tt.err)
		case tt.field != "" && !errors.As(tt.err, &ve):
			t.Errorf("%s: %v, want a *ValidationError", tt.name, tt.err)
		case tt.field != "" && ve.Field != tt.field:
			t.Errorf("%s: field %q, want %q (%v)", tt.name, ve.Field, tt.field, tt.err)
		}
	}
}

func TestParseMark(t *testing.T) {
	for in, want := range map[string]Priority{"": "", "pinned": Pinned, "skip": Skip} {
		if got, err := ParseMark(in); err != nil || got != want {
			t.Errorf("ParseMark(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"important", "normal", "PINNED"} {
		if _, err := ParseMark(bad); err == nil || err.Error() != `invalid priority "`+bad+`": want pinned or skip` {
			t.Errorf("ParseMark(%q): %v", bad, err)
		}
	}
}
