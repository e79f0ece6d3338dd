package skills

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// repo200 is a repository with 200 skills in its .agents/skills, each with
// a body of about 300 words and a reference file.
func repo200(b *testing.B) string {
	files := map[string]string{}
	for i := range 200 {
		n := fmt.Sprintf("skill-%03d", i)
		files[".agents/skills/"+n+"/SKILL.md"] = skillMD(n, "Do task number "+n+" when the user asks for it.",
			strings.Repeat("Step: run the tool, read [the notes](references/notes.md), check the output.\n", 25))
		files[".agents/skills/"+n+"/references/notes.md"] = "notes"
	}
	dir := b.TempDir()
	files[".git/HEAD"] = "x"
	for p, c := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := mkfile(p, c); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkDiscover200 lists 200 skills: cold parses, checks and counts
// every SKILL.md (o200k_base); warm answers from the metadata cache, as a
// second `lineage skills list` does.
func BenchmarkDiscover200(b *testing.B) {
	dir := repo200(b)
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		b.Run(name, func(b *testing.B) {
			cache := b.TempDir()
			o := Options{Cwd: dir, Root: rootCfg, CacheDir: cache}
			if warm {
				c, _ := Discover(o)
				c.Close()
			} else {
				o.CacheDir = ""
			}
			b.ReportAllocs()
			for b.Loop() {
				c, err := Discover(o)
				if err != nil || len(c.Skills) != 200 {
					b.Fatal(err, len(c.Skills))
				}
				c.Close()
			}
		})
	}
}
