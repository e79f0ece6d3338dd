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
// The check is a policy for honest mistakes and hostile arguments, not a
// sandbox: a symlink swapped in between the check and the use is not
// caught (the readers open files with [fsx.OpenRegular], which refuses
// anything but a regular file).
package confine
