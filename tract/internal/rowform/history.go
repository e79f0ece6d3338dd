package rowform

import (
	"github.com/agentlineage/lineage/internal/tokens"
	"github.com/agentlineage/lineage/tract"
)

// Commits drops the blobs of a history: what Reader.Ancestry returns for a
// store that answers it with History.
func Commits(hist []tract.HistoryCommit) []tract.Commit {
	out := make([]tract.Commit, len(hist))
	for i := range hist {
		out[i] = hist[i].Commit
	}
	return out
}

// TokenSlots is how many encodings have a dedicated token-count column.
const TokenSlots = 2

// TokenColumns are the blobs columns of the dedicated token counts, by slot.
var TokenColumns = [TokenSlots]string{"tokens_o200k", "tokens_cl100k"}

// TokenSlot is the slot of encoding's dedicated token-count column; ok is
// false for any other encoding, whose counts a store keeps in a JSON object
// keyed by name. A compile reads one count per commit, so the encodings in
// common use get a plain integer column.
func TokenSlot(encoding string) (slot int, ok bool) {
	switch encoding {
	case tokens.O200kBase:
		return 0, true
	case tokens.Cl100kBase:
		return 1, true
	}
	return 0, false
}

// TokenColumn is the name of encoding's dedicated token-count column.
func TokenColumn(encoding string) (string, bool) {
	slot, ok := TokenSlot(encoding)
	if !ok {
		return "", false
	}
	return TokenColumns[slot], true
}
