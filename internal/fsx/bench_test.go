package fsx

import "testing"

// The chain of a resolve: containment of a deep path and its directories.
func BenchmarkContainsBetween(b *testing.B) {
	for name, c := range map[string]struct {
		r         Rules
		root, dir string
	}{
		"unix":    {Unix, "/home/me/src/mono", "/home/me/src/mono/libs/x/pkg/internal/deep"},
		"darwin":  {Darwin, "/Users/Me/src/Mono", "/users/me/src/mono/libs/x/pkg/internal/deep"},
		"windows": {Windows, `C:\Users\Me\src\mono`, `c:\users\me\src\mono\libs\x\pkg\internal\deep`},
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !c.r.Contains(c.root, c.dir) || len(c.r.Between(c.root, c.dir)) != 6 {
					b.Fatal("not inside")
				}
			}
		})
	}
}
