package mcpserver

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/internal/platformtest"

	"github.com/agentlineage/lineage/instructions"
)

func TestStdioResolveTwiceReportsNothingNew(t *testing.T) {
	dir := project(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)

	var in InitialOutput
	call(t, cs, "instructions_initial", nil, &in)
	if len(in.Files) != 1 || in.Files[0].Path != filepath.Join(dir, "AGENTS.md") {
		t.Fatalf("initial files = %+v", in.Files)
	}
	if !strings.Contains(in.Text, "root rules") || in.TextResource != "" {
		t.Fatalf("initial text = %q (resource %q)", in.Text, in.TextResource)
	}

	var first, second ResolveOutput
	call(t, cs, "instructions_resolve", map[string]any{"paths": []string{"sub/deep/x.go"}}, &first)
	got := pathsOf(first)
	want := []string{filepath.Join(dir, "sub", "AGENTS.md"), filepath.Join(dir, "sub", "deep", "AGENTS.md")}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("first resolve = %v, want %v", got, want)
	}
	if !strings.HasPrefix(first.Reminder, `<system-reminder type="agents.resolve.paths">`) ||
		!strings.Contains(first.Reminder, "- "+want[1]+" (mtime: ") {
		t.Fatalf("reminder = %q", first.Reminder)
	}
	call(t, cs, "instructions_resolve", map[string]any{"paths": []string{"sub/deep/x.go"}}, &second)
	if len(pathsOf(second)) != 0 || second.Reminder != "" {
		t.Fatalf("second resolve = %+v, want nothing new", second)
	}
}

func pathsOf(out ResolveOutput) []string {
	var p []string
	for _, r := range out.Targets {
		for _, f := range r.Files {
			p = append(p, f.Path)
		}
	}
	return p
}

func TestResolveWithoutInitialStartsSession(t *testing.T) {
	dir := project(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	var out ResolveOutput
	call(t, cs, "instructions_resolve", map[string]any{"paths": []string{"sub"}}, &out)
	// The root file came with the implicit initial load.
	if got := pathsOf(out); len(got) != 1 || got[0] != filepath.Join(dir, "sub", "AGENTS.md") {
		t.Fatalf("resolve = %v", got)
	}
}

func TestSessionsAreSeparate(t *testing.T) {
	dir := project(t)
	p := serverProc{cwd: dir, stateDir: t.TempDir()}
	a, b := connectStdio(t, p, nil), connectStdio(t, p, nil)
	var ra, rb ResolveOutput
	call(t, a, "instructions_resolve", map[string]any{"paths": []string{"sub/x"}}, &ra)
	call(t, b, "instructions_resolve", map[string]any{"paths": []string{"sub/x"}}, &rb)
	if len(pathsOf(ra)) != 1 || len(pathsOf(rb)) != 1 {
		t.Fatalf("each session must get sub/AGENTS.md once: %v, %v", pathsOf(ra), pathsOf(rb))
	}
}

func TestStatelessSessionIsSharedAndSaved(t *testing.T) {
	dir := project(t)
	p := serverProc{cwd: dir, stateDir: filepath.Join(dir, ".lineage"), stateless: true}
	a := connectStdio(t, p, nil)
	var ra ResolveOutput
	call(t, a, "instructions_resolve", map[string]any{"paths": []string{"sub/x"}}, &ra)
	if len(pathsOf(ra)) != 1 {
		t.Fatalf("first server: %v", pathsOf(ra))
	}
	b := connectStdio(t, p, nil)
	var rb ResolveOutput
	call(t, b, "instructions_resolve", map[string]any{"paths": []string{"sub/x"}}, &rb)
	if len(pathsOf(rb)) != 0 {
		t.Fatalf("second server must share the saved session: %v", pathsOf(rb))
	}
	// instructions_initial starts the shared session afresh.
	var in InitialOutput
	call(t, b, "instructions_initial", nil, &in)
	call(t, a, "instructions_resolve", map[string]any{"paths": []string{"sub/x"}}, &ra)
	if len(pathsOf(ra)) != 1 {
		t.Fatalf("after a new initial: %v", pathsOf(ra))
	}
}

func TestInitialCwdArgument(t *testing.T) {
	dir := project(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	var in InitialOutput
	call(t, cs, "instructions_initial", map[string]any{"cwd": "sub"}, &in)
	if len(in.Files) != 2 || in.Files[1].Path != filepath.Join(dir, "sub", "AGENTS.md") {
		t.Fatalf("files = %+v", in.Files)
	}
	var out ResolveOutput
	call(t, cs, "instructions_resolve", map[string]any{"paths": []string{"sub/x"}}, &out)
	if len(pathsOf(out)) != 0 {
		t.Fatalf("sub was loaded initially, resolve = %v", pathsOf(out))
	}
}

func TestResolveRejectsBadArguments(t *testing.T) {
	dir := project(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"paths": []string{}}, "paths: give at least one path"},
		{map[string]any{"paths": []string{"a", ""}}, "paths[1]: must not be empty"},
		{map[string]any{}, "paths"},
		{map[string]any{"paths": []string{"a"}, "extra": 1}, "extra"},
	}
	for _, tt := range tests {
		if got := callError(t, cs, "instructions_resolve", tt.args); !strings.Contains(got, tt.want) {
			t.Errorf("args %v: error %q, want it to mention %q", tt.args, got, tt.want)
		}
	}
}

func TestLongInitialPointsToResource(t *testing.T) {
	dir := project(t)
	writeFile(t, filepath.Join(dir, "AGENTS.md"), strings.Repeat("a long rule line\n", 400))
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir(), maxTokens: 500}, nil)
	var in InitialOutput
	call(t, cs, "instructions_initial", nil, &in)
	if in.Text != "" || in.TextResource != InitialResourceURI || len(in.Files) != 1 {
		t.Fatalf("text %d bytes, resource %q, files %v", len(in.Text), in.TextResource, in.Files)
	}
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: in.TextResource})
	if err != nil {
		t.Fatal(err)
	}
	if txt := res.Contents[0].Text; !strings.HasPrefix(txt, `<agents_context scope="initial">`) || strings.Count(txt, "a long rule line") != 400 {
		t.Fatalf("resource text = %.80q…", txt)
	}

	call(t, cs, "instructions_initial", map[string]any{"cwd": "sub"}, &in)
	want := InitialResourceURI + "?cwd=" + url.QueryEscape(filepath.Join(dir, "sub"))
	if in.TextResource != want {
		t.Fatalf("resource = %q, want %q", in.TextResource, want)
	}
	res, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: in.TextResource})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Contents[0].Text, "sub rules") {
		t.Fatalf("resource for sub = %.200q", res.Contents[0].Text)
	}
}

func TestLongResolveLeavesRemainingPaths(t *testing.T) {
	dir := project(t)
	// A long directory (a macOS temp dir is long too): each target adds a
	// sizeable share of the cap in absolute paths, so resolving on while
	// the result is under a headroom guess is not enough.
	h := sha256.Sum256([]byte(t.Name()))
	dir = filepath.Join(dir, fmt.Sprintf("%x", h[:20]), fmt.Sprintf("%x", h[20:]))
	var paths []string
	for i := range 40 {
		d := filepath.Join("many", fmt.Sprintf("d%02d", i))
		writeFile(t, filepath.Join(dir, d, "AGENTS.md"), "rules\n")
		paths = append(paths, d)
	}
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir(), maxTokens: 1000}, nil)
	seen, calls := 0, 0
	for ; len(paths) > 0; calls++ {
		if calls > 40 {
			t.Fatal("paging does not make progress")
		}
		var out ResolveOutput
		call(t, cs, "instructions_resolve", map[string]any{"paths": paths}, &out)
		if n := resultTokens(&defaultTokens{}, out); n > 1000 {
			t.Fatalf("result of %d tokens over the cap (%d targets, %d remaining)", n, len(out.Targets), len(out.Remaining))
		}
		if len(out.Targets)+len(out.Remaining) != len(paths) {
			t.Fatalf("%d targets + %d remaining != %d paths", len(out.Targets), len(out.Remaining), len(paths))
		}
		seen += len(pathsOf(out))
		paths = out.Remaining
	}
	if seen != 40 || calls < 3 {
		t.Fatalf("saw %d files in %d calls, want 40 in several", seen, calls)
	}
}

func TestRootsNarrowTheWorkingDirectory(t *testing.T) {
	dir := project(t)
	client := &mcp.ClientOptions{}
	cs := func() *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, client)
		c.AddRoots(&mcp.Root{URI: fileURL(filepath.Join(dir, "sub"))})
		s, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: serverProc{cwd: dir, stateDir: t.TempDir()}.command(t)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}()
	var in InitialOutput
	call(t, cs, "instructions_initial", nil, &in)
	// The client's root is the allowed root, below the project root: the
	// project's AGENTS.md above it is read (the instruction chain of an
	// allowed root is readable), as the CLI reads it.
	if len(in.Files) != 2 || in.Files[0].Path != filepath.Join(dir, "AGENTS.md") || in.Files[1].Path != filepath.Join(dir, "sub", "AGENTS.md") ||
		len(in.Outside) != 0 || !strings.Contains(in.Text, "root rules") {
		t.Fatalf("initial from the client's root must load the chain from the project root: %+v", in)
	}
}

// Above a client root only the chain's instruction files are read, and
// only when their real path stays under the project root: an AGENTS.md
// there that links outside the project is reported outside, never read.
func TestChainAboveRootStaysInTheProject(t *testing.T) {
	dir := project(t)
	secret := filepath.Join(t.TempDir(), "secret.md")
	writeFile(t, secret, "TOP SECRET\n")
	os.Remove(filepath.Join(dir, "AGENTS.md"))
	platformtest.Symlink(t, secret, filepath.Join(dir, "AGENTS.md"))
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{})
	c.AddRoots(&mcp.Root{URI: fileURL(filepath.Join(dir, "sub"))})
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: serverProc{cwd: dir, stateDir: t.TempDir()}.command(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var in InitialOutput
	call(t, cs, "instructions_initial", nil, &in)
	if strings.Contains(in.Text, "TOP SECRET") || len(in.Outside) != 1 || in.Outside[0].Path != filepath.Join(dir, "AGENTS.md") {
		t.Fatalf("a linked-out AGENTS.md above the root was read or not reported: %+v", in)
	}
}

func TestSubscribedClientHearsAboutChangedAgentsFile(t *testing.T) {
	dir := project(t)
	updated := make(chan string, 10)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir(), poll: 20 * time.Millisecond}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updated <- req.Params.URI
		},
	})
	ctx := context.Background()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: InitialResourceURI}); err != nil {
		t.Fatal(err)
	}
	// A file resolved later is watched too.
	var out ResolveOutput
	call(t, cs, "instructions_resolve", map[string]any{"paths": []string{"sub/x"}}, &out)
	time.Sleep(100 * time.Millisecond)
	select {
	case uri := <-updated:
		t.Fatalf("notification %s before any change", uri)
	default:
	}
	for _, f := range []string{"AGENTS.md", "sub/AGENTS.md"} {
		writeFile(t, filepath.Join(dir, f), "changed rules, longer than before\n")
		select {
		case uri := <-updated:
			if uri != InitialResourceURI {
				t.Fatalf("updated %q", uri)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no notifications/resources/updated after %s changed", f)
		}
	}
}

func TestToolsDeclareSchemasAndHonestHints(t *testing.T) {
	dir := project(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir(), store: toolsTestStore(t)}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type hints struct{ readOnly, destructive, idempotent bool }
	want := map[string]hints{
		"instructions_initial": {false, false, true},
		"instructions_resolve": {false, false, false},
		"instructions_resume":  {false, false, false},
	}
	for k, v := range toolHintsWanted {
		want[k] = v
	}
	got := map[string]bool{}
	for _, tool := range res.Tools {
		got[tool.Name] = true
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("tool %s has no expectation in this test", tool.Name)
			continue
		}
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil {
			t.Errorf("%s: hints missing", tool.Name)
			continue
		}
		if a.ReadOnlyHint != w.readOnly || *a.DestructiveHint != w.destructive || a.IdempotentHint != w.idempotent {
			t.Errorf("%s: hints readOnly=%v destructive=%v idempotent=%v, want %+v", tool.Name, a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, w)
		}
		if tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: input or output schema missing", tool.Name)
		}
	}
	for name := range want {
		if !got[name] {
			t.Errorf("tool %s not listed", name)
		}
	}
}

// Text the model reads is text: a reminder or an instruction block is the
// result's text content exactly as the CLI prints it; any other result's
// text is its JSON without HTML escaping.
func TestTextContentIsWhatTheCLIPrints(t *testing.T) {
	dir := project(t)
	cs := connectStdio(t, serverProc{cwd: dir, stateDir: t.TempDir()}, nil)
	text := func(name string, args map[string]any) (string, map[string]any) {
		t.Helper()
		var structured map[string]any
		text := call(t, cs, name, args, &structured)
		return text, structured
	}
	got, st := text("instructions_initial", nil)
	if want := "<agents_context scope=\"initial\">\nInstructions from: " + filepath.Join(dir, "AGENTS.md") + "\nroot rules\n</agents_context>"; got != want || st["text"] != want {
		t.Errorf("initial text content = %q, want %q (structured text %q)", got, want, st["text"])
	}
	got, st = text("instructions_resolve", map[string]any{"paths": []string{"sub/x.go"}})
	if !strings.HasPrefix(got, `<system-reminder type="agents.resolve.paths">`+"\n") || got != st["reminder"] {
		t.Errorf("resolve text content = %q, want the reminder %q", got, st["reminder"])
	}
	got, _ = text("instructions_resolve", map[string]any{"paths": []string{"sub/x.go"}})
	if !strings.HasPrefix(got, `{"targets":`) || strings.Contains(got, `\u003c`) {
		t.Errorf("a resolve with nothing new: text content %q, want its JSON", got)
	}
	special := "<b>&"
	if runtime.GOOS == "windows" {
		special = "b&"
		t.Logf("Windows forbids < and > in file names: the HTML-escaping check uses %q", special)
	}
	writeFile(t, filepath.Join(dir, "sub", "deep", special, "AGENTS.md"), "x\n")
	got, _ = text("instructions_resolve", map[string]any{"paths": []string{"sub/deep/" + special + "/x.go"}})
	if strings.Contains(got, `\u003c`) || strings.Contains(got, `\u0026`) || !strings.Contains(got, special) {
		t.Errorf("HTML-escaped text content: %q", got)
	}
}

// With lineage's hook in the same harness session, the server shares the
// hook's state: a resolve reports only what the hook did not, and the hook
// hears of what the resolve reported.
func TestResolveSharesTheHookState(t *testing.T) {
	dir := project(t)
	hooksDir := t.TempDir()
	// The hook told the model about sub/AGENTS.md.
	sess, _ := instructions.Start(instructions.Options{Config: instructions.DefaultConfig(), Cwd: dir})
	sess.Resolve(filepath.Join(dir, "sub", "x.go"))
	hookState := filepath.Join(hooksDir, "claude-s1.json")
	if err := instructions.WriteState(context.Background(), hookState, sess.State()); err != nil {
		t.Fatal(err)
	}
	// Another harness's session in another directory is not shared.
	other, _ := instructions.Start(instructions.Options{Config: instructions.DefaultConfig(), Cwd: filepath.Join(dir, "sub")})
	if err := instructions.WriteState(context.Background(), filepath.Join(hooksDir, "claude-s2.json"), other.State()); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Cwd: dir, StateDir: t.TempDir(), HookSessions: hooksDir})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "2.1.332"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var out ResolveOutput
	call(t, cs, "instructions_resolve", map[string]any{"paths": []string{"sub/deep/x.go"}}, &out)
	if got := pathsOf(out); len(got) != 1 || got[0] != filepath.Join(dir, "sub", "deep", "AGENTS.md") {
		t.Fatalf("resolve = %v, want only sub/deep/AGENTS.md (the hook named sub/AGENTS.md)", got)
	}
	saved, ok, err := instructions.ReadState(hookState)
	if err != nil || !ok {
		t.Fatal(err)
	}
	found := false
	for _, f := range saved.Files {
		found = found || f.Path == filepath.Join(dir, "sub", "deep", "AGENTS.md")
	}
	if !found {
		t.Errorf("the hook's state does not know what the resolve reported: %+v", saved.Files)
	}
}

// fileURL is the file: URL of the absolute path p (RFC 8089): "file:///tmp/x"
// on Unix, "file:///C:/x" on Windows.
func fileURL(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
