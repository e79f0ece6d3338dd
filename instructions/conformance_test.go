package instructions

import (
	"context"
	"fmt"
	"github.com/agentlineage/lineage/internal/platformtest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A $HOME that is a symlink, with the working directory given by its
// physical path: home's own .codelia is still not a marker.
func TestHomeCodeliaThroughSymlinkedHome(t *testing.T) {
	base := t.TempDir()
	real := makeTree(t, filepath.Join(base, "real", "home"), map[string]string{".codelia/": "", "proj/src/": "", "marked/.codelia/": "", "marked/x/": ""})
	link := filepath.Join(base, "home")
	platformtest.Symlink(t, real, link)
	cfg := RootConfig{Markers: []string{".codelia"}, StopAtFsRoot: true}
	for _, home := range []string{link, real} {
		if r := EstimateRoot(nil, cfg, real+"/proj/src", home); r.Dir != real+"/proj/src" || r.Source != "cwd" {
			t.Errorf("home %s, physical cwd: %+v, want cwd (home's .codelia is not a marker)", home, r)
		}
		if r := EstimateRoot(nil, cfg, link+"/proj/src", home); r.Dir != link+"/proj/src" || r.Source != "cwd" {
			t.Errorf("home %s, logical cwd: %+v, want cwd", home, r)
		}
		if r := EstimateRoot(nil, cfg, real+"/marked/x", home); r.Dir != real+"/marked" {
			t.Errorf("home %s: .codelia below home: %+v, want it as the root", home, r)
		}
	}
}

// resolvedPath is the directory whose chain was (or would be) resolved,
// inside the root or not.
func TestResolvedPathOutsideRootIsItsDirectory(t *testing.T) {
	root := testRepo(t, map[string]string{"AGENTS.md": "top"})
	outside := makeTree(t, t.TempDir(), map[string]string{"sub/file.go": "x"})
	s, _ := Start(opts(root))
	for target, want := range map[string]string{
		filepath.Join(outside, "sub/file.go"): filepath.Join(outside, "sub"),
		filepath.Join(outside, "sub"):         filepath.Join(outside, "sub"),
		filepath.Join(outside, "new/x.go"):    filepath.Join(outside, "new"),
		filepath.Join(root, "a/x.go"):         filepath.Join(root, "a"),
	} {
		if r := s.Resolve(target); r.ResolvedPath != want {
			t.Errorf("Resolve(%s).ResolvedPath = %s, want %s", target, r.ResolvedPath, want)
		}
	}
}

// stateWriterEnv makes the test binary a process that starts, resolves and
// resumes a session on a state file (see TestMain), for strace.
const stateWriterEnv = "INSTRUCTIONS_STATE_WRITER"

func stateWriter(spec string) error {
	state, root, _ := strings.Cut(spec, "|")
	ctx := context.Background()
	o := Options{Config: testConfig(), Cwd: root}
	if _, _, err := StartSession(ctx, state, o); err != nil {
		return err
	}
	for _, target := range []string{"a/x.go", "a/x.go", "b/y.go"} {
		err := UpdateSession(ctx, state, o, func(s *Session, _ *Initial) error { s.Resolve(target); return nil })
		if err != nil {
			return err
		}
	}
	_, err := ResumeSession(ctx, state, o)
	return err
}

// No state-writing call lists the state file's directory: with 50,000
// entries beside the state file, a process that starts, resolves (with and
// without something new) and resumes a session makes no getdents call at
// all, as strace counts them.
func TestStateWritesListNoDirectory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skipf("traces the process with strace, which only Linux has (%s)", runtime.GOOS)
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("strace is needed on CI (.ci/run installs it)")
		}
		t.Skip("needs strace")
	}
	root := testRepo(t, map[string]string{"AGENTS.md": "top", "a/AGENTS.md": "a", "b/AGENTS.md": "b"})
	dir := t.TempDir()
	for i := range 50000 {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("other-%05d", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	state := filepath.Join(dir, "state.json")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-f", "-qq", "-o", trace, "-e", "trace=getdents,getdents64,openat", exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), stateWriterEnv+"="+state+"|"+root)
	if out, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "ptrace") {
			t.Skip("strace cannot trace here:", strings.TrimSpace(string(out)))
		}
		t.Fatalf("%v\n%s", err, out)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "state.json") {
		t.Fatalf("the trace shows no open of the state file: strace traced nothing?\n%s", data)
	}
	var listed []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "getdents") {
			listed = append(listed, line)
		}
	}
	if len(listed) > 0 {
		t.Errorf("%d getdents call(s), the first: %s", len(listed), listed[0])
	}
	st, ok, err := ReadState(state)
	if err != nil || !ok || len(st.Files) != 3 {
		t.Errorf("final state: %+v, %v, %v", st.Files, ok, err)
	}
	if _, err := os.Lstat(state + ".tmp-locked"); !os.IsNotExist(err) {
		t.Errorf("temporary file left beside the state: %v", err)
	}
}
