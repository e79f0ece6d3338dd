package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// lineageIn runs lineage with env in dir and fails the test unless it
// exits 0; it returns stdout.
func lineageIn(t *testing.T, dir string, env []string, lineage string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, lineage, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("lineage %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// checkRecorded checks what `hook install --record` promises after a real
// harness ran: the session whose first prompt holds marker is in the
// sessions store (recorded live by the installed hooks, nothing imported
// yet), an import of every transcript of the harness adds no commit (the
// hooks stored every record), and the session's log holds each of turns.
// It returns the session's id.
func checkRecorded(t *testing.T, dir string, env []string, lineage, harness, marker string, turns ...string) string {
	t.Helper()
	var list []struct {
		Harness, Session, Tract, FirstPrompt, Title string
		Records                                     int
	}
	out := lineageIn(t, dir, env, lineage, "sessions", "list", "--from", harness, "--json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("sessions list --json: %v\n%s", err, out)
	}
	id := ""
	for _, s := range list {
		if strings.Contains(s.FirstPrompt+s.Title, marker) && s.Records > 0 {
			id = s.Session
		}
	}
	if id == "" {
		t.Fatalf("no %s session with %q was recorded by the hooks:\n%s", harness, marker, out)
	}
	var rep struct {
		Added    int
		Sessions []struct {
			Tract string
			Added int
		}
	}
	out = lineageIn(t, dir, env, lineage, "sessions", "import", "--from", harness, "--all", "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("sessions import --json: %v\n%s", err, out)
	}
	if rep.Added != 0 {
		t.Errorf("importing the %s transcripts the hooks recorded added %d commits, want 0:\n%s", harness, rep.Added, out)
	}
	if show := lineageIn(t, dir, env, lineage, "sessions", "show", id); !strings.Contains(show, "records:") {
		t.Errorf("sessions show %s:\n%s", id, show)
	}
	log := lineageIn(t, dir, env, lineage, "sessions", "log", id, "-n", "1000")
	for _, turn := range turns {
		if !strings.Contains(log, turn) {
			t.Errorf("the recorded %s session's log lacks %q:\n%s", harness, turn, log)
		}
	}
	return id
}
