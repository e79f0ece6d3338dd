package tract

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"
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
