// Package confine keeps the paths a server face reads and writes inside a
// set of allowed root directories.
//
// A path is inside when its real location — after resolving "..", and
// every symlink of the part that exists — lies in the real location of one
// of the roots, compared component by component under the host's path
// rules ([fsx.Rules.Contains]). A path that does not exist yet is judged by
// its deepest existing ancestor, so a write cannot escape through a
// symlinked directory either. Refusals are [*OutsideError]s naming the path,
// where it leads, and the allowed roots.
//
// The check words refusals; it cannot hold alone, since a symlink can be
// swapped in between a check and the use. [Roots.OpenRegular] is the
// guarantee: it opens a file through the root that holds it ([os.Root]),
// so no swap leads a read outside.
package confine
