package instructions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStateRoundTripIsSortedAndShaped(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "r", "z/AGENTS.md": "z", "b/AGENTS.md": "b", "m/AGENTS.md": "m"})
	s, _ := Start(opts(root))
	for _, d := range []string{"z", "b", "m"} {
		s.Resolve(root + "/" + d)
	}
	st := s.State()
	var files []string
	for _, f := range st.Files {
		files = append(files, f.Path)
		if f.MtimeMs != (version{mtimeNs: f.MtimeNs}).mtimeMs() {
			t.Errorf("%s: mtimeMs %d does not match mtimeNs %d", f.Path, f.MtimeMs, f.MtimeNs)
		}
	}
	if !slices.IsSorted(files) || !slices.IsSorted(st.CoveredDirs) || len(files) != 4 {
		t.Errorf("lists not sorted or incomplete: %v %v", files, st.CoveredDirs)
	}
	data, err := MarshalState(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"version": 1`, `"root": `, `"rootSource": "marker:` + testMarker + `"`, `"cwd": `, `"markers": [`, `"files": [`, `"mtimeMs": `, `"mtimeNs": `, `"sizeBytes": `, `"coveredDirs": [`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("state lacks %s:\n%s", key, data)
		}
	}
	back, err := ParseState(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(st, Restore(back, opts(root)).State()); diff != "" {
		t.Errorf("restore (-want +got):\n%s", diff)
	}
}

func TestParseStateRejectsBadInput(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{`{"version": 2, "root": "/r", "cwd": "/r"}`, "unsupported state version 2"},
		{`{"version": 1, "root": "/r", "cwd": "/r", "extra": 1}`, `unknown key "extra"`},
		{`{"version": 1, "cwd": "/r"}`, "root and cwd must be set"},
		{`{"version": 1, "root": "/r", "cwd": "/r", "files": [{"path": 1}]}`, `files[0].path: expected a string`},
		{`{"version": 1,`, "line 1, column 15: unexpected EOF"},
	}
	for _, tt := range tests {
		if _, err := ParseState([]byte(tt.in)); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("ParseState(%s) = %v, want %q", tt.in, err, tt.wantErr)
		}
	}
}

// TestUpdateStateSkipsUnchangedWrite: an update that leaves the state as it
// was does not replace the file (same inode, no temp-file write and its
// fsyncs); a changed state does.
func TestUpdateStateSkipsUnchangedWrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.json")
	st := State{Version: 1, Root: "/r", Cwd: "/r", Markers: []string{}, Files: []StateFile{}, CoveredDirs: []string{}}
	same := func(cur *State) (State, error) { return st, nil }
	if err := UpdateState(context.Background(), p, same); err != nil {
		t.Fatal(err)
	}
	first, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := UpdateState(context.Background(), p, same); err != nil {
		t.Fatal(err)
	}
	second, _ := os.Stat(p)
	if !os.SameFile(first, second) {
		t.Error("an unchanged state was written again")
	}
	st.CoveredDirs = []string{"/r/a"}
	if err := UpdateState(context.Background(), p, same); err != nil {
		t.Fatal(err)
	}
	third, _ := os.Stat(p)
	if os.SameFile(second, third) {
		t.Error("a changed state was not written")
	}
	if got, _, _ := ReadState(p); !slices.Equal(got.CoveredDirs, []string{"/r/a"}) {
		t.Errorf("covered dirs %v after the update", got.CoveredDirs)
	}
}

// TestUpdateStateFileModeAndWritten: the mode option sets the file's
// permission bits on every write, and written tells a write from a skip.
func TestUpdateStateFileModeAndWritten(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.json")
	st := State{Version: 1, Root: "/r", Cwd: "/r", Markers: []string{}, Files: []StateFile{}, CoveredDirs: []string{}}
	same := func(*State) (State, error) { return st, nil }
	private := StateFileOptions{Mode: 0o600}
	for i, want := range []bool{true, false} {
		written, err := UpdateStateFile(context.Background(), p, private, same)
		if err != nil || written != want {
			t.Fatalf("update %d: written %v, err %v; want written %v", i, written, err, want)
		}
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	st.Cwd = "/r/a"
	if written, err := UpdateStateFile(context.Background(), p, StateFileOptions{}, same); err != nil || !written {
		t.Fatalf("changed state: written %v, err %v", written, err)
	}
	if fi, _ := os.Stat(p); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644 {
		t.Errorf("default mode %v, want 0644", fi.Mode().Perm())
	}
}

func TestUpdateStateErrorLeavesFileAlone(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.json")
	st := State{Version: 1, Root: "/r", Cwd: "/r", Markers: []string{}, Files: []StateFile{}, CoveredDirs: []string{}}
	if err := UpdateState(context.Background(), p, func(cur *State) (State, error) {
		if cur != nil {
			t.Error("a missing file came back as a state")
		}
		return st, nil
	}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p)
	boom := errors.New("boom")
	if err := UpdateState(context.Background(), p, func(*State) (State, error) { return State{}, boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	after, _ := os.ReadFile(p)
	if string(before) != string(after) {
		t.Error("a failed update changed the file")
	}
	write(t, p, "{broken")
	err := UpdateState(context.Background(), p, func(*State) (State, error) { return st, nil })
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("broken state: err = %v, want one naming %s", err, p)
	}
	if b, _ := os.ReadFile(p); string(b) != "{broken" {
		t.Error("a broken state file was overwritten")
	}
}

func TestUpdateSessionStartsOnceThenRestores(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "top", "sub/AGENTS.md": "sub"})
	p := filepath.Join(t.TempDir(), "state.json")
	ctx := context.Background()
	var first []string
	if err := UpdateSession(ctx, p, opts(root), func(s *Session, in *Initial) error {
		if in == nil {
			t.Fatal("a new session came without its initial load")
		}
		first = paths(in.Files)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(root, "AGENTS.md")}; !slices.Equal(first, want) {
		t.Fatalf("initial load %v, want %v", first, want)
	}
	var got []string
	for range 2 {
		if err := UpdateSession(ctx, p, opts(root), func(s *Session, in *Initial) error {
			if in != nil {
				t.Error("a saved session was started again")
			}
			got = append(got, paths(s.Resolve(filepath.Join(root, "sub")).Files)...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{filepath.Join(root, "sub", "AGENTS.md")}; !slices.Equal(got, want) {
		t.Fatalf("two resolves reported %v, want %v once", got, want)
	}
	before, _ := os.ReadFile(p)
	boom := errors.New("boom")
	err := UpdateSession(ctx, p, opts(root), func(s *Session, _ *Initial) error {
		s.Resolve(root)
		return boom
	})
	if after, _ := os.ReadFile(p); !errors.Is(err, boom) || string(after) != string(before) {
		t.Fatalf("a failed update: err %v, file changed %v", err, string(after) != string(before))
	}
}

// resolveWorker runs in a child process (see TestMain): it resolves targets
// against the state file the way `lineage instructions resolve` does and
// prints every reported path.
func resolveWorker(statePath, cwd string, targets []string) error {
	o := opts(cwd)
	return UpdateSession(context.Background(), statePath, o, func(s *Session, _ *Initial) error {
		for _, t := range targets {
			for _, f := range s.Resolve(t).Files {
				fmt.Println(f.Path)
			}
		}
		return nil
	})
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(stateWriterEnv); spec != "" {
		if err := stateWriter(spec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if spec := os.Getenv("INSTRUCTIONS_RESOLVE_WORKER"); spec != "" {
		parts := strings.Split(spec, "|")
		if err := resolveWorker(parts[0], parts[1], parts[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Concurrent processes resolving against one state file report each file
// exactly once overall.
func TestResolveAcrossProcessesReportsEachFileOnce(t *testing.T) {
	files := map[string]string{}
	var targets []string
	for i := range 12 {
		d := fmt.Sprintf("p%d/q", i)
		files[d+"/AGENTS.md"] = d
		files[fmt.Sprintf("p%d/AGENTS.md", i)] = d
		targets = append(targets, d)
	}
	root := testRepo(t, files)
	state := filepath.Join(t.TempDir(), "state.json")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const procs = 8
	outs := make([]string, procs)
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			order := slices.Clone(targets)
			for i := range order { // each process in its own order
				j := (i*7 + p*5) % len(order)
				order[i], order[j] = order[j], order[i]
			}
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "INSTRUCTIONS_RESOLVE_WORKER="+strings.Join(append([]string{state, root}, order...), "|"))
			out, err := cmd.Output()
			if err != nil {
				t.Errorf("worker %d: %v", p, err)
			}
			outs[p] = string(out)
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	for _, o := range outs {
		for _, line := range strings.Fields(o) {
			seen[line]++
		}
	}
	if len(seen) != 2*len(targets) {
		t.Errorf("reported %d distinct files, want %d", len(seen), 2*len(targets))
	}
	for p, n := range seen {
		if n != 1 {
			t.Errorf("%s reported %d times", p, n)
		}
	}
	st, ok, err := ReadState(state)
	if err != nil || !ok || len(st.Files) != 2*len(targets)+0 {
		t.Errorf("final state: %d files, %v, %v", len(st.Files), ok, err)
	}
}

func TestStartThenResumeSession(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "top"})
	p := filepath.Join(t.TempDir(), "state.json")
	ctx := context.Background()
	if _, err := ResumeSession(ctx, p, opts(root)); !errors.Is(err, ErrNoSession) || !strings.Contains(err.Error(), p) {
		t.Fatalf("resume with nothing saved: %v, want ErrNoSession naming %s", err, p)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a failed resume wrote a state file")
	}
	_, in, err := StartSession(ctx, p, opts(root))
	if err != nil || len(in.Files) != 1 {
		t.Fatalf("start: %v, %d files", err, len(in.Files))
	}
	r, err := ResumeSession(ctx, p, opts(root))
	if err != nil || r.Text != "" {
		t.Fatalf("resume with nothing changed: %q, %v", r.Text, err)
	}
	write(t, filepath.Join(root, "AGENTS.md"), "top, longer now")
	r, err = ResumeSession(ctx, p, opts(root))
	if err != nil || !strings.Contains(r.Text, filepath.Join(root, "AGENTS.md")) {
		t.Fatalf("resume after an edit: %q, %v; want the file named", r.Text, err)
	}
}
