package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlineage/lineage/tract"
)

func init() {
	suites = append(suites, []testCase{
		{"SpawnReference", testSpawnReference},
		{"SpawnSnapshotAndEmpty", testSpawnSeeds},
		{"MergeFromPlacement", testMergeFromPlacement},
		{"MergeFromSeveralChildren", testMergeFromSeveral},
		{"DeepDelegationOnce", testDeepDelegation},
		{"AnnotationsPerViewer", testAnnotationsPerViewer},
		{"EditsStayInTract", testEditsStayInTract},
		{"ChildCountsAgainstParentBudget", testChildBudget},
		{"GCKeepsMergedChildWork", testGCMergedChild},
		{"GCRetentionDryRunAndRm", testGCRetention},
		{"Blame", testBlame},
		{"ListTree", testListTree},
	})
}

// delegate spawns child from parent and commits texts in it.
func (e *env) delegate(parent, child string, mode tract.SpawnMode, texts ...string) {
	e.t.Helper()
	_, err := e.repo.Spawn(e.ctx, parent, child, tract.SpawnOptions{Purpose: "do " + child, Mode: mode})
	e.must(err)
	for _, s := range texts {
		e.add(child, tract.TypeMessage, "assistant", s)
	}
}

func (e *env) mergeFrom(child string) tract.MergeFromResult {
	e.t.Helper()
	res, err := e.repo.MergeFrom(e.ctx, child, "")
	e.must(err)
	return res
}

func testSpawnReference(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.add("main", tract.TypeInstruction, "", "coordinate")
	p := e.user("main", "write a report")
	before := e.commitCount()
	child, err := e.repo.Spawn(e.ctx, "main", "research", tract.SpawnOptions{Purpose: "research X"})
	e.must(err)
	if child.Spawn == nil || child.Spawn.Commit != p || child.Spawn.Mode != tract.SpawnReference || child.Spawn.Purpose != "research X" {
		t.Fatalf("spawn pointer %+v", child.Spawn)
	}
	if e.commitCount() != before {
		t.Fatal("reference spawn copied commits")
	}
	equal(t, e.texts("research"), "system: coordinate\nuser: write a report\n")
	c := e.add("research", tract.TypeMessage, "assistant", "found it")
	got, err := e.store.Commit(e.ctx, c)
	e.must(err)
	if got.Parents[0] != p {
		t.Fatalf("child's first commit has parent %s, want the parent's head", got.Parents[0].Short())
	}
	_, err = e.repo.Spawn(e.ctx, "main", "research", tract.SpawnOptions{Purpose: "again"})
	wantErr(t, err, tract.ErrExists, `tract "research"`)
	_, err = e.repo.Spawn(e.ctx, "main", "x", tract.SpawnOptions{Purpose: "p", Mode: "copy"})
	wantValidation(t, err, `invalid spawn mode "copy"`)
	_, err = e.repo.Spawn(e.ctx, "main", "x", tract.SpawnOptions{})
	wantValidation(t, err, "needs a purpose")
}

func testSpawnSeeds(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.add("main", tract.TypeInstruction, "", "coordinate")
	e.user("main", "write a report")
	e.delegate("main", "snap", tract.SpawnSnapshot, "snap work")
	equal(t, e.texts("snap"), "system: system: coordinate\n\nuser: write a report\n\nassistant: snap work\n")
	e.delegate("main", "blank", tract.SpawnEmpty, "blank work")
	equal(t, e.texts("blank"), "system: do blank\nassistant: blank work\n")
	e.mergeFrom("snap")
	e.mergeFrom("blank")
	// The parent has the seeds' context already: they are left out.
	equal(t, e.texts("main"), "system: coordinate\nuser: write a report\nassistant: snap work\nassistant: blank work\n")
	_, err := e.repo.Spawn(e.ctx, "main", "small", tract.SpawnOptions{Purpose: "p", Mode: tract.SpawnSnapshot, Budget: 5})
	wantErr(t, err, nil, "pinned messages need")
}

// testMergeFromPlacement: the child's block sits after the parent's context
// (including what the parent did meanwhile) and before what follows the
// merge; neither the parent's context nor anything else repeats.
func testMergeFromPlacement(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.add("main", tract.TypeInstruction, "", "coordinate")
	e.user("main", "write a report")
	e.add("main", tract.TypeMessage, "assistant", "delegating")
	e.delegate("main", "research", tract.SpawnReference, "r1", "r2")
	e.user("main", "meanwhile")
	res := e.mergeFrom("research")
	if res.Kind != tract.MergeCommit || res.Parent != "main" {
		t.Fatalf("merge-from %+v", res)
	}
	e.add("main", tract.TypeMessage, "assistant", "the report")
	out := e.compile("main", tract.CompileOptions{})
	equal(t, texts(out), "system: coordinate\nuser: write a report\nassistant: delegating\nuser: meanwhile\nassistant: r1\nassistant: r2\nassistant: the report\n")
	if out.Messages[4].Tract != "research" || out.Messages[3].Tract != "main" {
		t.Fatalf("provenance %+v", out.Messages)
	}
	again := e.mergeFrom("research")
	if again.Kind != tract.MergeUpToDate {
		t.Fatalf("second merge-from %+v", again)
	}
	// More child work merges as a new block, once.
	e.add("research", tract.TypeMessage, "assistant", "r3")
	e.mergeFrom("research")
	equal(t, e.texts("main"), "system: coordinate\nuser: write a report\nassistant: delegating\nuser: meanwhile\nassistant: r1\nassistant: r2\nassistant: the report\nassistant: r3\n")
	mc, err := e.store.Commit(e.ctx, res.Merge)
	e.must(err)
	child, _ := e.repo.Tract(e.ctx, "research")
	second, _ := e.store.Commit(e.ctx, mc.Parents[1])
	if second.Tract != child.ID {
		t.Fatal("merge-from's second parent is not the child's commit")
	}
}

func testMergeFromSeveral(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "task")
	e.delegate("main", "researcher", tract.SpawnReference, "facts")
	e.delegate("main", "checker", tract.SpawnReference, "checked")
	e.delegate("main", "editor", tract.SpawnEmpty, "edited")
	e.mergeFrom("checker")
	e.mergeFrom("researcher")
	e.mergeFrom("editor")
	equal(t, e.texts("main"), "user: task\nassistant: checked\nassistant: facts\nassistant: edited\n")
	_, err := e.repo.MergeFrom(e.ctx, "main", "")
	wantValidation(t, err, "was not spawned")
	_, err = e.repo.MergeFrom(e.ctx, "checker", "checker")
	wantValidation(t, err, "cannot merge from itself")
}

// testDeepDelegation: A spawns B, B spawns C; B merges C, A merges B: A's
// compile has C's and B's work exactly once each.
func testDeepDelegation(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "A asks")
	e.delegate("main", "b", tract.SpawnReference, "b1")
	e.delegate("b", "c", tract.SpawnReference, "c1", "c2")
	e.add("b", tract.TypeMessage, "assistant", "b2")
	e.mergeFrom("c")
	e.add("b", tract.TypeMessage, "assistant", "b3")
	e.compile("main", tract.CompileOptions{})
	e.mergeFrom("b")
	e.user("main", "A continues")
	equal(t, e.texts("main"), "user: A asks\nassistant: b1\nassistant: b2\nassistant: c1\nassistant: c2\nassistant: b3\nuser: A continues\n")
	equal(t, e.texts("c"), "user: A asks\nassistant: b1\nassistant: c1\nassistant: c2\n")
	// Snapshot seeds down the chain stay out of every ancestor's compile.
	e2 := setup(t, newStore)
	e2.user("main", "A asks")
	e2.delegate("main", "b", tract.SpawnSnapshot, "b1")
	e2.delegate("b", "c", tract.SpawnSnapshot, "c1")
	e2.mergeFrom("c")
	e2.mergeFrom("b")
	equal(t, e2.texts("main"), "user: A asks\nassistant: b1\nassistant: c1\n")
	equal(t, e2.texts("b"), "system: user: A asks\n\nassistant: b1\nassistant: c1\n")
}

func testAnnotationsPerViewer(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	p := e.user("main", "parent fact")
	e.delegate("main", "child", tract.SpawnReference, "child note", "child noise")
	_, err := e.repo.Annotate(e.ctx, "child", string(p), tract.Skip, "not needed here")
	e.must(err)
	equal(t, e.texts("child"), "assistant: child note\nassistant: child noise\n")
	e.mergeFrom("child")
	// The child's SKIP of a parent commit does not hide it from the parent.
	equal(t, e.texts("main"), "user: parent fact\nassistant: child note\nassistant: child noise\n")
	// The parent's annotations apply to child commits in the parent's compile only.
	_, err = e.repo.Annotate(e.ctx, "main", "child:HEAD", tract.Skip, "")
	e.must(err)
	equal(t, e.texts("main"), "user: parent fact\nassistant: child note\n")
	equal(t, e.texts("child"), "assistant: child note\nassistant: child noise\n")
	// Without a parent annotation the author's (child's) priority counts.
	_, err = e.repo.Annotate(e.ctx, "child", "child:HEAD~1", tract.Pinned, "")
	e.must(err)
	res := e.compile("main", tract.CompileOptions{})
	if res.Messages[1].Priority != tract.Pinned {
		t.Fatalf("author annotation not used: %+v", res.Messages[1])
	}
}

func testEditsStayInTract(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	p := e.user("main", "parent fact")
	e.delegate("main", "child", tract.SpawnReference, "child note")
	before := e.commitCount()
	_, err := e.repo.Edit(e.ctx, "child", string(p), "rewritten by child", "")
	wantValidation(t, err, "belongs to another tract; a tract edits only its own commits")
	e.mergeFrom("child")
	_, err = e.repo.Edit(e.ctx, "main", "child:HEAD", "rewritten by parent", "")
	wantValidation(t, err, "belongs to another tract")
	if e.commitCount() != before+1 {
		t.Fatal("rejected cross-tract edits stored commits")
	}
	_, err = e.repo.Edit(e.ctx, "child", "child:HEAD", "child fixes its own", "")
	e.must(err)
	equal(t, e.texts("child"), "user: parent fact\nassistant: child fixes its own\n")
	equal(t, e.texts("main"), "user: parent fact\nassistant: child note\n")
}

func testChildBudget(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.add("main", tract.TypeInstruction, "", "coordinate")
	e.delegate("main", "child", tract.SpawnReference, "child one", "child two")
	e.mergeFrom("child")
	full := e.compile("main", tract.CompileOptions{})
	if full.Tokens != full.Messages[0].Tokens+full.Messages[1].Tokens+full.Messages[2].Tokens+3 {
		t.Fatalf("child messages not counted: %+v", full)
	}
	res := e.compile("main", tract.CompileOptions{Budget: full.Tokens - 1})
	if len(res.Dropped) != 1 || res.Dropped[0].Tract != "child" {
		t.Fatalf("dropped %+v", res.Dropped)
	}
}

// testGCMergedChild: after merge-from, resetting the child to its first
// commit and collecting with no retention leaves the parent's compile
// unchanged and verify clean.
func testGCMergedChild(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "task")
	e.delegate("main", "child", tract.SpawnReference, "c1", "c2", "c3")
	e.mergeFrom("child")
	e.add("child", tract.TypeMessage, "assistant", "after the merge")
	before := e.texts("main")
	_, err := e.repo.Reset(e.ctx, "child", "child:HEAD~3")
	e.must(err)
	e.clock.Advance(time.Hour)
	rep, err := e.repo.GC(e.ctx, tract.GCOptions{Retention: 0})
	e.must(err)
	if len(rep.Removed) != 1 || rep.Blobs != 1 {
		t.Fatalf("gc %+v", rep)
	}
	equal(t, e.coldTexts("main"), before)
	vr, err := e.repo.Verify(e.ctx)
	e.must(err)
	if len(vr.Damage) != 0 {
		t.Fatalf("verify after gc: %v", vr.Damage)
	}
	again, err := e.repo.GC(e.ctx, tract.GCOptions{})
	e.must(err)
	if len(again.Removed) != 0 || again.Blobs != 0 {
		t.Fatalf("second gc removed %+v", again)
	}
	// Removing the child keeps what the parent merged.
	e.must(e.repo.RemoveTract(e.ctx, "child"))
	e.clock.Advance(time.Hour)
	_, err = e.repo.GC(e.ctx, tract.GCOptions{})
	e.must(err)
	equal(t, e.coldTexts("main"), before)
	if _, err := e.repo.Tract(e.ctx, "child"); err == nil {
		t.Fatal("removed tract still listed")
	}
	res := e.compile("main", tract.CompileOptions{})
	if res.Messages[1].Tract != "child" {
		t.Fatalf("removed author's name lost: %+v", res.Messages[1])
	}
}

func (e *env) coldTexts(tractName string) string {
	e.t.Helper()
	res, err := e.repo.CompileCold(e.ctx, tractName, tract.CompileOptions{})
	e.must(err)
	return texts(res)
}

func testGCRetention(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	a := e.user("main", "keep")
	b := e.user("main", "dropped by reset")
	_, err := e.repo.Annotate(e.ctx, "main", string(b), tract.Important, "")
	e.must(err)
	_, err = e.repo.Reset(e.ctx, "main", string(a))
	e.must(err)
	// Young: the reflog still names b, and b itself is recent.
	rep, err := e.repo.GC(e.ctx, tract.GCOptions{Retention: tract.DefaultRetention})
	e.must(err)
	if len(rep.Removed) != 0 || rep.Scanned != 2 {
		t.Fatalf("gc with retention %+v", rep)
	}
	e.clock.Advance(8 * 24 * time.Hour)
	dry, err := e.repo.GC(e.ctx, tract.GCOptions{Retention: tract.DefaultRetention, DryRun: true})
	e.must(err)
	if !slices.Equal(dry.Removed, []tract.Hash{b}) || !dry.DryRun {
		t.Fatalf("dry run %+v", dry)
	}
	if _, err := e.store.Commit(e.ctx, b); err != nil {
		t.Fatal("dry run removed a commit")
	}
	var phases []string
	rep, err = e.repo.GC(e.ctx, tract.GCOptions{Retention: tract.DefaultRetention, Progress: func(p string, _, _ int) {
		if len(phases) == 0 || phases[len(phases)-1] != p {
			phases = append(phases, p)
		}
	}})
	e.must(err)
	if !slices.Equal(rep.Removed, []tract.Hash{b}) || rep.Blobs != 1 || rep.Reflog == 0 {
		t.Fatalf("gc %+v", rep)
	}
	if strings.Join(phases, ",") != "scan,mark,delete" {
		t.Fatalf("progress phases %v", phases)
	}
	if anns, _ := e.store.Annotations(e.ctx, tract.AnnotationQuery{Commit: b}); len(anns) != 0 {
		t.Fatal("annotations of a removed commit survived")
	}
	again, err := e.repo.GC(e.ctx, tract.GCOptions{})
	e.must(err)
	if len(again.Removed) != 0 {
		t.Fatalf("second gc %+v", again)
	}
	// A removed tract's own commits go once nothing reaches them.
	_, err = e.repo.NewTract(e.ctx, "scratch")
	e.must(err)
	e.user("scratch", "temporary")
	e.must(e.repo.RemoveTract(e.ctx, "scratch"))
	e.clock.Advance(time.Second)
	rep, err = e.repo.GC(e.ctx, tract.GCOptions{})
	e.must(err)
	if len(rep.Removed) != 1 {
		t.Fatalf("gc after rm %+v", rep)
	}
	vr, err := e.repo.Verify(e.ctx)
	e.must(err)
	if len(vr.Damage) != 0 {
		t.Fatalf("verify: %v", vr.Damage)
	}
}

func testBlame(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	p := e.user("main", "A asks")
	e.delegate("main", "b", tract.SpawnReference, "b1")
	e.delegate("b", "c", tract.SpawnReference, "c1")
	e.mergeFrom("c")
	e.mergeFrom("b")
	bl, err := e.repo.Blame(e.ctx, "main", tract.CompileOptions{})
	e.must(err)
	if len(bl) != 3 {
		t.Fatalf("blame %+v", bl)
	}
	want := []struct {
		tract, path, summary string
	}{{"main", "main", "A asks"}, {"b", "main/b", "b1"}, {"c", "main/b/c", "c1"}}
	for i, w := range want {
		if bl[i].Tract != w.tract || strings.Join(bl[i].SpawnPath, "/") != w.path || bl[i].Summary != w.summary || bl[i].Index != i {
			t.Errorf("blame[%d] = %+v, want %+v", i, bl[i], w)
		}
	}
	if bl[0].Commit != p {
		t.Errorf("blame commit %s", bl[0].Commit)
	}
}

func testListTree(t *testing.T, newStore Factory) {
	e := setup(t, newStore)
	e.user("main", "x")
	e.delegate("main", "b", tract.SpawnReference)
	e.delegate("b", "c", tract.SpawnSnapshot)
	e.delegate("main", "a", tract.SpawnEmpty)
	_, err := e.repo.NewTract(e.ctx, "solo")
	e.must(err)
	list, err := e.repo.List(e.ctx)
	e.must(err)
	// Each tract's spawn parent by name, with the spawn's mode and purpose.
	spawns := map[string]string{}
	for _, ti := range list {
		spawns[ti.Name] = "root"
		if ti.Spawn != nil {
			spawns[ti.Name] = ti.Parent + " " + string(ti.Spawn.Mode) + " " + ti.Spawn.Purpose
		}
	}
	equal(t, fmt.Sprint(spawns), "map[a:main empty do a b:main reference do b c:b snapshot do c main:root solo:root]")
	if list[1].Parent != "main" || list[1].Head == "" {
		t.Fatalf("list %+v", list[1])
	}
}
