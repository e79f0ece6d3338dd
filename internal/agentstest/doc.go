// Package agentstest gives the agents, triad and journal tests the real CLIA
// corpus (shared/corpus/clia): where it is ($LINEAGE_CORPUS, else found by
// walking up from the working directory), its repository folders, and
// temporary copies of it — the nested workspace with the .git markers its
// _layout.json describes. Tests that need it skip with a message when it is
// absent. Only test code imports this package.
package agentstest
