package fsx_test

import (
	"fmt"

	"github.com/agentlineage/lineage/internal/fsx"
)

// The same question answered under each OS's rules, on any host.
func ExampleRules_Contains() {
	fmt.Println(fsx.Unix.Contains("/Users/me", "/users/me/proj"))
	fmt.Println(fsx.Darwin.Contains("/Users/me", "/users/me/proj"))
	fmt.Println(fsx.Windows.Contains(`C:\Users\Me`, `c:/users/me/proj`))
	fmt.Println(fsx.Windows.Contains(`C:\Users\Me`, `C:\Users\Me\..\..\D:\x`))
	fmt.Println(fsx.Windows.Ancestors(`\\srv\share\proj\src`))
	// Output:
	// false
	// true
	// true
	// false
	// [\\srv\share\ \\srv\share\proj \\srv\share\proj\src]
}
