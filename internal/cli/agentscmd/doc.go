// Package agentscmd is the `lineage agents` command group: CLIA agent
// triads seen from a working path (contexts, merged profiles, doctor and
// lint, agendas) and the journal writes (log, commission, roster, tidy).
package agentscmd
