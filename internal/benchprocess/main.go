package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// run is one finished child: its CPU (user + system) and wall seconds and
// its peak resident set in bytes (0 where the system reports none).
type run struct {
	cpu, wall float64
	peak      int64
	exit      int
}

// options are the command line: A's argv, B's, the pairs counted and the
// uncounted warm-up pairs before them.
type options struct {
	a, b     []string
	runs     int
	warmup   int
	loadavg  func() string
	runChild func([]string) (run, error)
	stdout   io.Writer
}

const maxRuns = 1000

func main() {
	o, err := parseArgs(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchprocess: %v\n", err)
		os.Exit(2)
	}
	o.loadavg, o.runChild, o.stdout = loadAverage, runOnce, os.Stdout
	if err := measure(o); err != nil {
		fmt.Fprintf(os.Stderr, "benchprocess: %v\n", err)
		os.Exit(1)
	}
}

func parseArgs(args []string, errOut io.Writer) (options, error) {
	fs := flag.NewFlagSet("benchprocess", flag.ContinueOnError)
	fs.SetOutput(errOut)
	n := fs.Int("n", 15, "pairs counted (A and B once each)")
	warm := fs.Int("warmup", 1, "pairs run first and not counted")
	vs := fs.String("vs", "", "B: the baseline command, split at spaces")
	fs.Usage = func() {
		fmt.Fprintln(errOut, "usage: go run ./internal/benchprocess [-n PAIRS] [-warmup PAIRS] -vs 'B [ARG...]' -- A [ARG...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	o := options{a: fs.Args(), b: strings.Fields(*vs), runs: *n, warmup: *warm}
	switch {
	case len(o.a) == 0:
		return o, errors.New("no command A: give it after --")
	case len(o.b) == 0:
		return o, errors.New("no command B: give it with -vs")
	case o.runs < 1 || o.runs > maxRuns:
		return o, fmt.Errorf("-n %d: give 1 to %d pairs", o.runs, maxRuns)
	case o.warmup < 0 || o.warmup > 10:
		return o, fmt.Errorf("-warmup %d: give 0 to 10 pairs", o.warmup)
	}
	return o, nil
}

// measure runs the warm-up pairs, then o.runs pairs A B, and prints the
// table (see [report]).
func measure(o options) error {
	fmt.Fprintf(o.stdout, "%s/%s, %d cpus, load average %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), o.loadavg())
	fmt.Fprintf(o.stdout, "A: %s\nB: %s\n", strings.Join(o.a, " "), strings.Join(o.b, " "))
	var as, bs []run
	for i := range o.warmup + o.runs {
		a, err := o.runChild(o.a)
		if err != nil {
			return fmt.Errorf("A: %w", err)
		}
		b, err := o.runChild(o.b)
		if err != nil {
			return fmt.Errorf("B: %w", err)
		}
		if i >= o.warmup {
			as, bs = append(as, a), append(bs, b)
		}
	}
	return report(o.stdout, as, bs)
}

// report prints min, median and max of each side's CPU milliseconds, wall
// milliseconds and peak MiB, and of the pair-by-pair ratios A/B.
func report(w io.Writer, as, bs []run) error {
	field := func(rs []run, f func(run) float64) []float64 {
		out := make([]float64, len(rs))
		for i, r := range rs {
			out[i] = f(r)
		}
		return out
	}
	ratio := func(f func(run) float64) []float64 {
		var out []float64
		for i := range as {
			if d := f(bs[i]); d > 0 {
				out = append(out, f(as[i])/d)
			}
		}
		return out
	}
	cpu := func(r run) float64 { return r.cpu * 1000 }
	wall := func(r run) float64 { return r.wall * 1000 }
	peak := func(r run) float64 { return float64(r.peak) / (1 << 20) }
	rows := []struct {
		name string
		v    []float64
	}{
		{"A cpu ms", field(as, cpu)}, {"B cpu ms", field(bs, cpu)},
		{"A wall ms", field(as, wall)}, {"B wall ms", field(bs, wall)},
		{"A peak MiB", field(as, peak)}, {"B peak MiB", field(bs, peak)},
		{"A/B cpu", ratio(cpu)}, {"A/B wall", ratio(wall)},
	}
	fmt.Fprintf(w, "%-13s %10s %10s %10s\n", fmt.Sprintf("%d pairs", len(as)), "min", "median", "max")
	for _, r := range rows {
		if len(r.v) == 0 {
			fmt.Fprintf(w, "%-13s %10s\n", r.name, "n/a")
			continue
		}
		lo, med, hi := spread(r.v)
		fmt.Fprintf(w, "%-13s %10.3f %10.3f %10.3f\n", r.name, lo, med, hi)
	}
	for _, side := range []struct {
		name string
		rs   []run
	}{{"A", as}, {"B", bs}} {
		for _, r := range side.rs {
			if r.exit != 0 {
				fmt.Fprintf(w, "note: %s exited %d in at least one run\n", side.name, r.exit)
				break
			}
		}
	}
	return nil
}

// spread returns the minimum, median and maximum of v (not empty); the
// median of an even count is the mean of the middle two.
func spread(v []float64) (lo, med, hi float64) {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return s[0], med, s[n-1]
}

// runOnce starts argv with an empty standard input, discards what it
// writes through a pipe, and returns the system's account of it.
func runOnce(argv []string) (run, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start).Seconds()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return run{}, err
	}
	ps := cmd.ProcessState
	return run{cpu: (ps.UserTime() + ps.SystemTime()).Seconds(), wall: wall, peak: peakBytes(ps), exit: ps.ExitCode()}, nil
}

// loadAverage is the first line of /proc/loadavg where there is one.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
