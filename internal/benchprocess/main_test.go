package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	// The test binary doubles as a child for TestRunOnce.
	if code := os.Getenv("BENCHPROCESS_CHILD_EXIT"); code != "" {
		os.Stdout.WriteString("child output\n")
		if code == "3" {
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestParseArgs(t *testing.T) {
	o, err := parseArgs([]string{"-n", "7", "-warmup", "2", "-vs", "b  -x", "--", "a", "--version"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.a, "|") != "a|--version" || strings.Join(o.b, "|") != "b|-x" || o.runs != 7 || o.warmup != 2 {
		t.Errorf("parsed %+v", o)
	}
	for _, bad := range [][]string{
		{"-vs", "b"}, // no A
		{"--", "a"},  // no B
		{"-n", "0", "-vs", "b", "--", "a"},
		{"-n", "1001", "-vs", "b", "--", "a"},
		{"-warmup", "11", "-vs", "b", "--", "a"},
	} {
		if _, err := parseArgs(bad, io.Discard); err == nil {
			t.Errorf("parseArgs(%q) accepted", bad)
		}
	}
}

func TestSpread(t *testing.T) {
	for _, c := range []struct {
		in          []float64
		lo, med, hi float64
	}{
		{[]float64{3}, 3, 3, 3},
		{[]float64{5, 1, 3}, 1, 3, 5},
		{[]float64{4, 1, 3, 2}, 1, 2.5, 4},
	} {
		lo, med, hi := spread(c.in)
		if lo != c.lo || med != c.med || hi != c.hi {
			t.Errorf("spread(%v) = %v %v %v, want %v %v %v", c.in, lo, med, hi, c.lo, c.med, c.hi)
		}
	}
}

// TestMeasureAlternatesAndPairs checks the order A B A B, that warm-up
// pairs are not counted and that the ratio is the median of the pairs'
// ratios, not the ratio of the medians.
func TestMeasureAlternatesAndPairs(t *testing.T) {
	var order []string
	// A's CPU: 10, 20, 40, 80 ms; B's: 5, 5, 40, 10 ms. Pairs after one
	// warm-up: 20/5=4, 40/40=1, 80/10=8 → median 4 (medians' ratio 4).
	aCPU := []float64{0.010, 0.020, 0.040, 0.080}
	bCPU := []float64{0.005, 0.005, 0.040, 0.010}
	var ai, bi int
	var out bytes.Buffer
	o := options{a: []string{"A"}, b: []string{"B"}, runs: 3, warmup: 1, stdout: &out,
		loadavg: func() string { return "1.00 2.00 3.00" },
		runChild: func(argv []string) (run, error) {
			order = append(order, argv[0])
			if argv[0] == "A" {
				ai++
				return run{cpu: aCPU[ai-1], wall: aCPU[ai-1]}, nil
			}
			bi++
			return run{cpu: bCPU[bi-1], wall: bCPU[bi-1], exit: 1}, nil
		}}
	if err := measure(o); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ""); got != "ABABABAB" {
		t.Errorf("order %s", got)
	}
	text := out.String()
	for _, want := range []string{
		"load average 1.00 2.00 3.00",
		"3 pairs",
		"A cpu ms          20.000     40.000     80.000",
		"A/B cpu            1.000      4.000      8.000",
		"note: B exited 1 in at least one run",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "A exited") {
		t.Errorf("A never failed:\n%s", text)
	}
}

func TestRunOnce(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BENCHPROCESS_CHILD_EXIT", "3")
	r, err := runOnce([]string{exe})
	if err != nil {
		t.Fatal(err)
	}
	if r.exit != 3 || r.wall <= 0 || r.cpu < 0 {
		t.Errorf("run %+v: want exit 3 and a wall time", r)
	}
	if _, err := runOnce([]string{"/nonexistent/benchprocess-child"}); err == nil {
		t.Error("a command that cannot start gave no error")
	}
}
