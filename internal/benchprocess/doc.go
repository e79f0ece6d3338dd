// Command benchprocess measures two programs as whole processes, in turn,
// and reports the median of their paired CPU ratios: how the speed figures
// in docs/tract.md and docs/startup.md are taken. Run it from the
// repository with the go command alone:
//
//	go run ./internal/benchprocess -n 21 -vs 'bin/empty' -- bin/lineage --version
//
// A (after --) and B (-vs, one string split at spaces; no quoting, no
// shell: write sh -c '…' as A when a pipe or redirection is needed) run
// alternately, A B A B …, after -warmup uncounted pairs. Each run's CPU is
// the operating system's own account of the finished child (user + system
// time), its wall time a monotonic clock around start and reap, its peak
// the child's maximum resident set (where the system reports one). Both
// programs read an empty standard input; what they write goes through a
// pipe and is thrown away. The ratio A/B is taken pair by pair, so a
// machine whose speed drifts during the run still gives a meaningful
// ratio; quote the median and note the load average printed on the first
// line.
//
// An empty Go program is the yardstick for start-up (what any Go binary
// costs on this machine): build one with
//
//	mkdir -p /tmp/empty && printf 'package main\n\nfunc main() {}\n' >/tmp/empty/main.go
//	CGO_ENABLED=0 go build -o bin/empty /tmp/empty/main.go
//
// It is not part of the lineage binary and is never shipped.
package main
