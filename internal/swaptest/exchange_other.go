//go:build !linux

package swaptest

import "os"

// exchange swaps a and b with three renames (a is briefly missing).
func exchange(a, b string) error {
	tmp := a + ".swaptest"
	if err := os.Rename(a, tmp); err != nil {
		return err
	}
	if err := os.Rename(b, a); err != nil {
		return err
	}
	return os.Rename(tmp, b)
}
