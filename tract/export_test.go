package tract

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
)

// validExport is a one-commit export built by hand.
func validExport(t testing.TB) string {
	b, err := NewBlob(Content{Type: TypeMessage, Role: RoleUser, Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	c := Commit{Parents: []Hash{}, Content: b.Hash, Operation: OpAppend, Tract: "t1", Time: at, Meta: []byte(`{"k":"v"}`)}
	c.Hash = c.ComputeHash()
	return fmt.Sprintf(`{"kind":"lineage-export","version":1}
{"kind":"tract","id":"t1","name":"main","created":"2026-01-02T03:04:05Z"}
{"kind":"blob","hash":"%s","data":%s}
{"kind":"commit","hash":"%s","parents":[],"content":"%s","operation":"append","time":"2026-01-02T03:04:05.000000006Z","meta":{"k":"v"},"tract":"t1"}
{"kind":"ref","tract":"t1","name":"HEAD","value":"branch:main"}
{"kind":"ref","tract":"t1","name":"main","value":"%s"}
{"kind":"annotation","viewer":"t1","commit":"%s","priority":"pinned","time":"2026-01-02T03:04:05Z"}
`, b.Hash, b.Data, c.Hash, b.Hash, c.Hash, c.Hash)
}

func TestParseExport(t *testing.T) {
	p, err := ParseExport(bytes.NewReader([]byte(validExport(t))))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.tracts) != 1 || len(p.blobs) != 1 || len(p.commits) != 1 || len(p.refs) != 2 || len(p.anns) != 1 || string(p.commits[0].Meta) != `{"k":"v"}` {
		t.Fatalf("parsed %+v", p)
	}
	for name, tc := range map[string]struct {
		in      string
		line    int
		damaged bool
	}{
		"text changed":  {bytes.NewBuffer(bytes.Replace([]byte(validExport(t)), []byte(`"text":"hi"`), []byte(`"text":"ho"`), 1)).String(), 3, true},
		"time changed":  {bytes.NewBuffer(bytes.Replace([]byte(validExport(t)), []byte(`.000000006Z`), []byte(`.000000007Z`), 1)).String(), 4, true},
		"meta reorders": {bytes.NewBuffer(bytes.Replace([]byte(validExport(t)), []byte(`"meta":{"k":"v"}`), []byte(`"meta":{ "k":"v"}`), 1)).String(), 4, false},
		"bad priority":  {bytes.NewBuffer(bytes.Replace([]byte(validExport(t)), []byte(`"pinned"`), []byte(`"high"`), 1)).String(), 7, false},
		"no header":     {`{"kind":"tract"}`, 1, false},
		"new version":   {`{"kind":"lineage-export","version":2}`, 1, false},
	} {
		_, err := ParseExport(bytes.NewReader([]byte(tc.in)))
		var ee *ExportError
		if !errors.As(err, &ee) || ee.Line != tc.line || errors.Is(err, ErrDamaged) != tc.damaged {
			t.Errorf("%s: %v (want line %d, damaged %v)", name, err, tc.line, tc.damaged)
		}
	}
}

// FuzzParseExport: any input either fails with an ExportError naming a
// line, or parses into records whose hashes all recompute.
func FuzzParseExport(f *testing.F) {
	f.Add([]byte(validExport(f)))
	f.Add([]byte(`{"kind":"lineage-export","version":1}` + "\n" + `{"kind":"commit","hash":"00","time":"2026-01-02T03:04:05Z","tract":"x","operation":"merge"}`))
	f.Add([]byte(`{"kind":"lineage-export","version":1}` + "\n" + `{"kind":"blob","hash":"ab","data":{"b":1,"a":2}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseExport(bytes.NewReader(data))
		if err != nil {
			var ee *ExportError
			if !errors.As(err, &ee) || ee.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		for _, b := range p.blobs {
			if sha256Hex(b.Data) != b.Hash {
				t.Fatalf("blob %s accepted with a wrong hash", b.Hash)
			}
		}
		for _, c := range p.commits {
			if c.ComputeHash() != c.Hash {
				t.Fatalf("commit %s accepted with a wrong hash", c.Hash)
			}
		}
	})
}

// meaningExport builds an export whose every hash is valid around one
// record the caller makes invalid in meaning: blob data, the commit's
// parents, tracts, refs and annotations as given.
func meaningExport(t *testing.T, data string, parents func(root Hash) []Hash, tracts, refs, anns []string) string {
	t.Helper()
	ok, err := NewBlob(Content{Type: TypeMessage, Role: RoleUser, Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	root := Commit{Parents: []Hash{}, Content: ok.Hash, Operation: OpAppend, Tract: "t1", Time: at}
	root.Hash = root.ComputeHash()
	lines := []string{`{"kind":"lineage-export","version":1}`}
	lines = append(lines, tracts...)
	lines = append(lines, fmt.Sprintf(`{"kind":"blob","hash":"%s","data":%s}`, ok.Hash, ok.Data))
	content := ok.Hash
	if data != "" {
		content = sha256Hex([]byte(data))
		lines = append(lines, fmt.Sprintf(`{"kind":"blob","hash":"%s","data":%s}`, content, data))
	}
	lines = append(lines, fmt.Sprintf(`{"kind":"commit","hash":"%s","parents":[],"content":"%s","operation":"append","time":"2026-01-02T03:04:05Z","tract":"t1"}`, root.Hash, ok.Hash))
	head := root.Hash
	if parents != nil || data != "" {
		ps := []Hash{root.Hash}
		if parents != nil {
			ps = parents(root.Hash)
		}
		c := Commit{Parents: ps, Content: content, Operation: OpAppend, Tract: "t1", Time: at}
		if len(ps) > 1 {
			c.Content, c.Operation = "", OpMerge
		}
		c.Hash = c.ComputeHash()
		pj, _ := json.Marshal(ps)
		contentField := ""
		if c.Content != "" {
			contentField = fmt.Sprintf(`"content":"%s",`, c.Content)
		}
		lines = append(lines, fmt.Sprintf(`{"kind":"commit","hash":"%s","parents":%s,%s"operation":"%s","time":"2026-01-02T03:04:05Z","tract":"t1"}`, c.Hash, pj, contentField, c.Operation))
		head = c.Hash
	}
	for _, r := range refs {
		lines = append(lines, strings.ReplaceAll(r, "HEADHASH", string(head)))
	}
	for _, a := range anns {
		lines = append(lines, strings.ReplaceAll(a, "HEADHASH", string(head)))
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestImportChecksMeaning: an export whose hashes all hold but whose
// records break a rule commit, branch or spawn applies is refused, naming
// the line (exit 3 in the CLI), like a damaged one.
func TestImportChecksMeaning(t *testing.T) {
	t1 := `{"kind":"tract","id":"t1","name":"main","created":"2026-01-02T03:04:05Z"}`
	head := `{"kind":"ref","tract":"t1","name":"HEAD","value":"branch:main"}`
	main := `{"kind":"ref","tract":"t1","name":"main","value":"HEADHASH"}`
	good := meaningExport(t, "", nil, []string{t1}, []string{head, main}, nil)
	if _, err := ParseExport(strings.NewReader(good)); err != nil {
		t.Fatalf("the valid export: %v", err)
	}
	big := `{"role":"user","text":"` + strings.Repeat("a", MaxContentBytes) + `","type":"message"}`
	for name, tc := range map[string]struct {
		in   string
		want string
	}{
		"ref name ../../x": {meaningExport(t, "", nil, []string{t1}, []string{head, main, `{"kind":"ref","tract":"t1","name":"../../x","value":"HEADHASH"}`}, nil), `ref "../../x"`},
		"ref name newline": {meaningExport(t, "", nil, []string{t1}, []string{head, main, `{"kind":"ref","tract":"t1","name":"a\nb","value":"HEADHASH"}`}, nil), `ref "a\nb"`},
		"ref value":        {meaningExport(t, "", nil, []string{t1}, []string{head, `{"kind":"ref","tract":"t1","name":"main","value":"nothing"}`}, nil), "not a commit hash"},
		"HEAD missing":     {meaningExport(t, "", nil, []string{t1}, []string{`{"kind":"ref","tract":"t1","name":"HEAD","value":"branch:gone"}`, main}, nil), `names branch "gone"`},
		"unknown tract":    {meaningExport(t, "", nil, []string{t1}, []string{head, main, `{"kind":"ref","tract":"t9","name":"x","value":"HEADHASH"}`}, nil), "tract id t9, which is not in the export"},
		"self spawn": {meaningExport(t, "", nil, []string{t1, `{"kind":"tract","id":"t2","name":"kid","created":"2026-01-02T03:04:05Z","spawn":{"parent":"t2","purpose":"p","mode":"reference","time":"2026-01-02T03:04:05Z"}}`},
			[]string{head, main}, nil), "spawned from itself"},
		"spawn cycle": {meaningExport(t, "", nil, []string{t1,
			`{"kind":"tract","id":"t2","name":"a","created":"2026-01-02T03:04:05Z","spawn":{"parent":"t3","purpose":"p","mode":"reference","time":"2026-01-02T03:04:05Z"}}`,
			`{"kind":"tract","id":"t3","name":"b","created":"2026-01-02T03:04:05Z","spawn":{"parent":"t2","purpose":"p","mode":"reference","time":"2026-01-02T03:04:05Z"}}`},
			[]string{head, main}, nil), "form a cycle"},
		"role wizard":       {meaningExport(t, `{"role":"wizard","text":"x","type":"message"}`, nil, []string{t1}, []string{head, main}, nil), `invalid role "wizard"`},
		"type bogus":        {meaningExport(t, `{"role":"user","text":"x","type":"bogus"}`, nil, []string{t1}, []string{head, main}, nil), `invalid type "bogus"`},
		"no role":           {meaningExport(t, `{"text":"x","type":"message"}`, nil, []string{t1}, []string{head, main}, nil), "no role"},
		"content limit":     {meaningExport(t, big, nil, []string{t1}, []string{head, main}, nil), "the limit for one commit's content"},
		"duplicate parents": {meaningExport(t, "", func(root Hash) []Hash { return []Hash{root, root, root} }, []string{t1}, []string{head, main}, nil), "named twice"},
		"annotation viewer": {meaningExport(t, "", nil, []string{t1}, []string{head, main}, []string{`{"kind":"annotation","time":"2026-01-02T03:04:05Z","viewer":"t7","commit":"HEADHASH","priority":"skip"}`}), "annotation by tract id t7"},
		// Times a store cannot keep: stored, they would change, and the
		// commit (or the view of it) would fail verify.
		"tract created 2300": {meaningExport(t, "", nil, []string{`{"kind":"tract","id":"t1","name":"main","created":"2300-01-02T03:04:05Z"}`}, []string{head, main}, nil), "created 2300-01-02T03:04:05Z is outside what a store keeps"},
		"tract created 1600": {meaningExport(t, "", nil, []string{`{"kind":"tract","id":"t1","name":"main","created":"1600-01-02T03:04:05Z"}`}, []string{head, main}, nil), "is outside what a store keeps"},
		"spawn time 9999": {meaningExport(t, "", nil, []string{t1, `{"kind":"tract","id":"t2","name":"kid","created":"2026-01-02T03:04:05Z","spawn":{"parent":"t1","purpose":"p","mode":"reference","time":"9999-01-02T03:04:05Z"}}`},
			[]string{head, main}, nil), "spawn time 9999-01-02T03:04:05Z is outside"},
		"annotation 1969": {meaningExport(t, "", nil, []string{t1}, []string{head, main}, []string{`{"kind":"annotation","time":"1969-12-31T23:59:59Z","viewer":"t1","commit":"HEADHASH","priority":"skip"}`}), "time 1969-12-31T23:59:59Z is outside"},
		"commit 2263":     {timedCommitExport(t, time.Date(2263, 1, 1, 0, 0, 0, 0, time.UTC)), "time 2263-01-01T00:00:00Z is outside"},
	} {
		_, err := ParseExport(strings.NewReader(tc.in))
		var ee *ExportError
		if !errors.As(err, &ee) || ee.Line == 0 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an ExportError with %q", name, err, tc.want)
		}
	}
}

// timedCommitExport is an export of one tract whose one commit, rightly
// hashed, was made at at.
func timedCommitExport(t *testing.T, at time.Time) string {
	t.Helper()
	b, err := NewBlob(Content{Type: TypeMessage, Role: RoleUser, Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	c := Commit{Parents: []Hash{}, Content: b.Hash, Operation: OpAppend, Tract: "t1", Time: at}
	c.Hash = c.ComputeHash()
	return strings.Join([]string{`{"kind":"lineage-export","version":1}`,
		`{"kind":"tract","id":"t1","name":"main","created":"2026-01-02T03:04:05Z"}`,
		fmt.Sprintf(`{"kind":"blob","hash":"%s","data":%s}`, b.Hash, b.Data),
		fmt.Sprintf(`{"kind":"commit","hash":"%s","parents":[],"content":"%s","operation":"append","time":"%s","tract":"t1"}`, c.Hash, b.Hash, at.Format(time.RFC3339Nano)),
		`{"kind":"ref","tract":"t1","name":"HEAD","value":"branch:main"}`,
		fmt.Sprintf(`{"kind":"ref","tract":"t1","name":"main","value":"%s"}`, c.Hash),
	}, "\n") + "\n"
}
