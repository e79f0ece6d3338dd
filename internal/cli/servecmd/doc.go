// Package servecmd is the `lineage serve` command: the read-only web page
// of a tract store, its compiles and the instructions here.
package servecmd
