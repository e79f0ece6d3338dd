package tract

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

func TestParseRange(t *testing.T) {
	tests := []struct {
		in, from, to, reason string
	}{
		{"HEAD~4..HEAD~1", "HEAD~4", "HEAD~1", ""},
		{"a1b2c3d4..main", "a1b2c3d4", "main", ""},
		{"kid:HEAD~2..kid:HEAD", "kid:HEAD~2", "kid:HEAD", ""},
		{"", "", "", "empty"},
		{"  ", "", "", "empty"},
		{"HEAD", "", "", `no ".."`},
		{"..HEAD", "", "", "FROM is empty"},
		{"HEAD~3..", "", "", "TO is empty"},
		{"..", "", "", "FROM is empty"},
		{"A...B", "", "", "three dots"},
		{"A..B..C", "", "", `more than one ".."`},
		{"A....B", "", "", "three dots"},
		{"HEAD~3 ..HEAD", "", "", `FROM "HEAD~3 " holds white space`},
		{"HEAD~3..HEAD\n", "", "", `TO "HEAD\n" holds white space`},
		{"HEAD~3..\x00", "", "", `TO "\x00" holds white space or a control character`},
	}
	for _, tt := range tests {
		from, to, err := ParseRange(tt.in)
		if tt.reason == "" {
			if err != nil || from != tt.from || to != tt.to {
				t.Errorf("ParseRange(%q) = %q, %q, %v; want %q, %q", tt.in, from, to, err, tt.from, tt.to)
			}
			continue
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != "range" || !strings.Contains(err.Error(), tt.reason) || !strings.Contains(err.Error(), "want FROM..TO") {
			t.Errorf("ParseRange(%q) error %v, want a range validation error saying %q", tt.in, err, tt.reason)
		}
	}
}

// FuzzParseRange: a range that parses is exactly FROM + ".." + TO, both
// ends non-empty, free of "..", white space and control characters; one
// that does not gets a one-line range validation error.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"HEAD~4..HEAD~1", "..", "A...B", "a..b..c", "x:HEAD..y", "HEAD \t..\u2028", "é..ü", "\xff..a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		from, to, err := ParseRange(s)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "range" || strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("ParseRange(%q): error %q is not a one-line range validation error", s, err)
			}
			return
		}
		if from+".."+to != s || from == "" || to == "" || strings.Contains(from, "..") || strings.Contains(to, "..") || strings.HasPrefix(to, ".") {
			t.Fatalf("ParseRange(%q) = %q, %q", s, from, to)
		}
		if strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
			t.Fatalf("ParseRange(%q) accepted white space or a control character", s)
		}
	})
}

func TestParseBudget(t *testing.T) {
	for in, want := range map[string]int{"": 0, "none": 0, "1": 1, "4000": 4000, "+12": 12, "007": 7} {
		if n, err := ParseBudget(in); err != nil || n != want {
			t.Errorf("ParseBudget(%q) = %d, %v; want %d", in, n, err, want)
		}
	}
	for _, in := range []string{"0", "-3", "lots", "4k", " 10", "99999999999999999999", "None"} {
		if _, err := ParseBudget(in); err == nil || !strings.Contains(err.Error(), "want a positive number of tokens, or none") {
			t.Errorf("ParseBudget(%q) error %v", in, err)
		}
	}
}

// FuzzParseBudget: a budget that parses is none or positive, and what is
// stored for it (its decimal form) parses back to the same number.
func FuzzParseBudget(f *testing.F) {
	for _, s := range []string{"", "none", "10", "-1", "0", "+7", "1e3", "9223372036854775807", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBudget(s)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "budget" {
				t.Fatalf("ParseBudget(%q): %v", s, err)
			}
			return
		}
		if n < 0 || (n == 0 && s != "" && s != "none") {
			t.Fatalf("ParseBudget(%q) = %d", s, n)
		}
		if n > 0 {
			if back, err := ParseBudget(strconv.Itoa(n)); err != nil || back != n {
				t.Fatalf("ParseBudget(%q) = %d, which reads back as %d, %v", s, n, back, err)
			}
		}
	})
}

// TestTimeLikeRefs: a ref that starts like a date and a time but is no
// time lineage reads is a usage error naming the forms, not a tract ref.
func TestTimeLikeRefs(t *testing.T) {
	for ref, want := range map[string]bool{
		"2026-01-02 12:00":    true,
		"2026-01-02T12:00":    true,
		"2026-01-02 1":        true,
		"2026-01-02":          false, // a date: read as its midnight
		"2026-01-02Tx":        false,
		"main:HEAD":           false,
		"2026_01-02 12:00":    false,
		"abcd-01-02 12:00":    false,
		"2026-01-02T12:00:00": true,
	} {
		if got := timeLike(ref); got != want {
			t.Errorf("timeLike(%q) = %v, want %v", ref, got, want)
		}
	}
	_, err := resolve(t.Context(), nil, Tract{Name: "main"}, "2026-01-02 12:00")
	var ve *ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "give RFC 3339 (2026-01-02T12:00:00Z) or a date") {
		t.Fatalf("resolve of a garbled time: %v", err)
	}
}
