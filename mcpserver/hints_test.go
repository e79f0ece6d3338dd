package mcpserver

// toolHintsWanted are the hints of the tools added beyond the instruction
// tools; each area adds its own.
var toolHintsWanted = map[string]struct{ readOnly, destructive, idempotent bool }{}
