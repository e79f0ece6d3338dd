// Package fstest is the conformance suite of [instructions.FS]: what the
// instruction loader relies on of the filesystem it looks through, written
// once and run by every implementation (the operating system's
// [instructions.OS], [instructions.Traced] over it, the MCP server's
// confined view, the tests' counting fakes), as tract/storetest is for
// stores. An implementation's test is a few lines:
//
//	func TestFSConformance(t *testing.T) {
//		fstest.Run(t, func(t *testing.T, root string) instructions.FS { return myFS(root) })
//	}
//
// Run builds a small tree under a temporary root (files, a directory, a
// symbolic link inside and one leading outside, a dangling link, a FIFO
// where the platform has them) and checks the contract: Stat follows links
// and Lstat does not; a missing name is fs.ErrNotExist; OpenRegular reads
// regular files and refuses anything else without blocking; and, where the
// implementation offers them, OpenRegularIn stays inside its directory
// ([instructions.RootOpener]) and ReadDir lists sorted entries
// ([instructions.DirReader]).
package fstest
