package agents

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"testing"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// wholeGitmodules decodes data in one piece, as ParseGitmodules did before
// it cut files into chunks: the reference the chunked parse must match.
func wholeGitmodules(data []byte) (paths []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
		return nil, err
	}
	for _, s := range cfg.Sections {
		if s.IsName("submodule") {
			for _, sub := range s.Subsections {
				for _, p := range sub.OptionAll("path") {
					if p != "" && !slices.Contains(paths, p) {
						paths = append(paths, p)
					}
				}
			}
		}
	}
	sort.Strings(paths)
	return paths, nil
}

// Cutting a file before every header (the smallest chunks) gives what the
// whole file gives: values continued onto a '[' line, comments, CRLF,
// sections repeated across chunks.
func FuzzGitmodulesChunksMatchWhole(f *testing.F) {
	f.Add([]byte("[submodule \"a\"]\n\tpath = a/b\n[submodule \"b\"]\npath = b\n"))
	f.Add([]byte("[submodule \"a\"]\n\turl = x\\\n[submodule \"b\"]\n\tpath = p\n"))
	f.Add([]byte("[submodule \"a\"]\r\n\tpath = a\r\n  [submodule \"a\"]\r\n\tpath = a2\r\n"))
	f.Add([]byte("path = top\n[submodule \"a\"]\n# [x]\n;[y\npath = z\n"))
	f.Add([]byte("[submodule \"a\"]\npath = \"q\\\n[submodule \\\"b\\\"]\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := wholeGitmodules(data)
		got, gerr := parseGitmodules(data, 1)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("whole err = %v, chunked err = %v", werr, gerr)
		}
		if werr == nil && !slices.Equal(got, want) {
			t.Fatalf("chunked = %q, whole = %q", got, want)
		}
	})
}

func manyGitmodules(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "[submodule \"m%06d\"]\n\tpath = libs/m%06d\n\turl = https://example.com/m%06d.git\n", i, i, i)
	}
	return b.Bytes()
}

// Linear time: no decoder ever sees more than sectionsPerChunk headers, so
// the decoder's per-subsection scan is bounded by a constant; and all 20k
// paths come back.
func TestGitmodulesChunksAreBounded(t *testing.T) {
	data := manyGitmodules(20000)
	chunks := sectionChunks(data, sectionsPerChunk)
	if len(chunks) != (20000+sectionsPerChunk-1)/sectionsPerChunk {
		t.Errorf("%d chunks for 20000 sections", len(chunks))
	}
	var joined []byte
	for _, c := range chunks {
		if n := bytes.Count(c.data, []byte("\n[")) + 1; n > sectionsPerChunk {
			t.Fatalf("chunk at line %d has %d headers", c.line, n)
		}
		joined = append(joined, c.data...)
	}
	if !bytes.Equal(joined, data) {
		t.Error("chunks do not add up to the file")
	}
	paths, err := ParseGitmodules(data)
	if err != nil || len(paths) != 20000 || paths[19999] != "libs/m019999" {
		t.Errorf("got %d paths, err %v", len(paths), err)
	}
	if chunks[1].line != sectionsPerChunk*3+1 {
		t.Errorf("second chunk starts at line %d", chunks[1].line)
	}
	if _, err := ParseGitmodules(append(data, "[broken"...)); err == nil || !bytes.Contains([]byte(err.Error()), []byte("from line 59905")) {
		t.Errorf("error in a late chunk = %v, want it to name where that part starts", err)
	}
}

func BenchmarkParseGitmodules(b *testing.B) {
	for _, n := range []int{20000, 200000} {
		data := manyGitmodules(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ParseGitmodules(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseGitmodulesWhole(b *testing.B) {
	data := manyGitmodules(20000)
	for b.Loop() {
		if _, err := wholeGitmodules(data); err != nil {
			b.Fatal(err)
		}
	}
}
