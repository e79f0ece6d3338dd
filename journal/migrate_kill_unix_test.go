//go:build unix

package journal

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/agentstest"
)

func init() { workers["migrate-kill"] = migrateKillWorker }

// migrateKillWorker runs migrate --write on the tree at root and sends
// itself the signal named by sig (KILL or HUP, left to its default
// action, as for a closed terminal) just before the n-th change; it prints
// "ops <count>" when it finishes without reaching it.
func migrateKillWorker(root, sig string, n int) error {
	count := 0
	migrateHook = func(op string) {
		count++
		if count != n {
			return
		}
		killSelf(sig)
	}
	if _, err := Migrate(context.Background(), Options{Agents: agents.Options{Path: root}}, Tidy{Dir: ".", Write: true}); err != nil {
		return err
	}
	fmt.Println("ops", count)
	return nil
}

// killCorpus is a copy of the corpus with a workspace marker and one more
// agent whose documents inherit legacy documents of the corpus by a
// repository path and through a plain JSON policy, so the renames have
// references to rewrite.
func killCorpus(t *testing.T, whole bool) string {
	t.Helper()
	ws := filepath.Join(tempRoot(t), "ws")
	broker := "wrkstrm-finance__common-broker@72680e6"
	src, dst := filepath.Join(corpusRoot(t), broker), filepath.Join(ws, broker)
	if whole {
		src, dst = corpusRoot(t), ws
	}
	if err := agentstest.CopyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	legacy := broker + "/.wrkstrm/clia/agents/product-manager/OmniBroker.product-manager.agent.json"
	write(t, ws, map[string]string{
		".git":                                 "<dir>",
		".clia/agents/k/k@ws.agent.triad.json": `{"schemaVersion": "0.4.0", "role": "k", "inherits": ["policies/common.json"]}`,
		"policies/common.json":                 `{"guardrails": ["G-common"], "inherits": ["../` + legacy + `"]}`,
	})
	return ws
}

func relSnapshot(t *testing.T, root string) map[string]string {
	out := map[string]string{}
	for p, b := range snapshot(t, root) {
		out[strings.TrimPrefix(p, root)] = string(b)
	}
	return out
}

func diffRel(a, b map[string]string) []string {
	var out []string
	for p, x := range a {
		if y, ok := b[p]; !ok || x != y {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	return out
}

// A migrate --write killed (SIGKILL, or SIGHUP as when its terminal
// closes) before any one of its changes, and then run again, ends with the
// same tree, byte for byte, as a run never interrupted: the journal of a
// killed run is finished first. On a copy of a corpus repository with
// legacy names (and referrers of them) every step is tried with both
// signals; on the whole corpus (133 changes) every ninth, unless -short.
func TestKilledMigrateConvergesOnRerun(t *testing.T) {
	killAtEveryStep(t, false, 1)
}

func TestKilledMigrateConvergesOnWholeCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	killAtEveryStep(t, true, 9)
}

func killAtEveryStep(t *testing.T, whole bool, step int) {
	ref := killCorpus(t, whole)
	cmd := workerCmd(t, "migrate-kill", ref, "KILL", 1<<30)
	out, err := cmd.CombinedOutput()
	var ops int
	if _, serr := fmt.Sscanf(string(out), "ops %d", &ops); err != nil || serr != nil || ops < 10 {
		t.Fatalf("uninterrupted run: %v %s", err, out)
	}
	want := relSnapshot(t, ref)
	if _, err := os.Stat(filepath.Join(ref, MigrateJournalName)); err == nil {
		t.Fatal("an uninterrupted run left its journal")
	}
	for n := 1; n <= ops; n += step {
		for _, sig := range []string{"KILL", "HUP"} {
			ws := killCorpus(t, whole)
			out, err := workerCmd(t, "migrate-kill", ws, sig, n).CombinedOutput()
			if err == nil || bytes.Contains(out, []byte("ops")) {
				t.Fatalf("step %d %s: the run was not killed: %v %s", n, sig, err, out)
			}
			if _, err := Migrate(context.Background(), Options{Agents: agents.Options{Path: ws}}, Tidy{Dir: ".", Write: true}); err != nil {
				t.Fatalf("step %d %s: rerun: %v", n, sig, err)
			}
			if d := diffRel(want, relSnapshot(t, ws)); len(d) > 0 {
				t.Fatalf("step %d %s: the rerun's tree differs from an uninterrupted run's in %v", n, sig, d)
			}
			os.RemoveAll(filepath.Dir(ws))
		}
	}
	t.Logf("%d changes, each interrupted by SIGKILL and SIGHUP", ops)
}

func init() { workers["move-kill"] = moveKillWorker }

// moveKillWorker renames pm to product at root, killed like
// migrateKillWorker; n < 0 finishes an interrupted move (by a second
// rename, which finds the journal first).
func moveKillWorker(root, sig string, n int) error {
	count := 0
	migrateHook = func(op string) {
		count++
		if count == n {
			killSelf(sig)
		}
	}
	if _, err := MoveAgent(context.Background(), Options{Agents: agents.Options{Path: root}}, Move{Slug: "pm", To: "product", Write: true}); err != nil {
		return err
	}
	fmt.Println("ops", count)
	return nil
}

// A rename killed before any one of its changes (SIGKILL or SIGHUP) and
// run again ends with the tree an uninterrupted rename leaves (the next
// migrate or move of the workspace would finish it as well).
func TestKilledMoveConvergesOnRerun(t *testing.T) {
	ref := moveTree(t)
	out, err := workerCmd(t, "move-kill", ref, "KILL", 1<<30).CombinedOutput()
	var ops int
	if _, serr := fmt.Sscanf(string(out), "ops %d", &ops); err != nil || serr != nil || ops < 5 {
		t.Fatalf("uninterrupted run: %v %s", err, out)
	}
	want := relSnapshot(t, ref)
	for n := 1; n <= ops; n++ {
		for _, sig := range []string{"KILL", "HUP"} {
			ws := moveTree(t)
			out, err := workerCmd(t, "move-kill", ws, sig, n).CombinedOutput()
			if err == nil || bytes.Contains(out, []byte("ops")) {
				t.Fatalf("step %d %s: not killed: %v %s", n, sig, err, out)
			}
			if _, err := MoveAgent(context.Background(), Options{Agents: agents.Options{Path: ws}}, Move{Slug: "pm", To: "product", Write: true}); err != nil {
				t.Fatalf("step %d %s: rerun: %v", n, sig, err)
			}
			if d := diffRel(want, relSnapshot(t, ws)); len(d) > 0 {
				t.Fatalf("step %d %s: tree differs from an uninterrupted rename's in %v", n, sig, d)
			}
		}
	}
	t.Logf("%d changes, each interrupted by SIGKILL and SIGHUP", ops)
}

// killSelf sends this worker SIGKILL, or SIGHUP for sig "HUP", and waits
// to die of it.
func killSelf(sig string) {
	s := syscall.SIGKILL
	if sig == "HUP" {
		s = syscall.SIGHUP
		exitOnIgnoredHUP()
	}
	syscall.Kill(os.Getpid(), s)
	waitForever()
}

// waitForever blocks a worker until a signal ends it. Not select {}: in a
// process whose other goroutines have all ended, the runtime calls that a
// deadlock and exits (a lock holder would then release its lock before the
// test looked: CI saw a held lock reported stale).
func waitForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// exitOnIgnoredHUP makes a worker started with SIGHUP ignored (nohup, some
// CI runners; a child inherits it) exit at once on SIGHUP, without
// unlocking or cleaning up, as the default action would; otherwise a
// worker that sends itself SIGHUP would wait forever.
func exitOnIgnoredHUP() {
	if signal.Ignored(syscall.SIGHUP) {
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		go func() { <-hup; os.Exit(2) }()
	}
}
