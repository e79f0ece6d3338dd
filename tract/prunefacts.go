package tract

import (
	"context"
	"strings"

	"github.com/go-json-experiment/json"
)

// pruneFacts are what a compile-time prune reads of a compile's messages,
// gathered one message at a time (add): a few bytes a message, and for
// FailedTurns the commits and call ids of the tool results and calls that
// are not pinned. rules makes the policy's choice from them, so the
// stored checkpoint's window (which never holds the compile) and a whole
// compile (applyPrune) choose alike.
type pruneFacts struct {
	kind   []uint8
	tokens []int32
	// results are the tool results, calls the tool call messages, not
	// pinned, gathered when failed is set.
	failed  bool
	results []prunedResult
	calls   []prunedCall
}

type prunedResult struct {
	i      int
	commit Hash
	callID string
}

type prunedCall struct {
	i   int
	ids []string
}

// Kinds of message a prune tells apart, and a flag for pinned.
const (
	factOther uint8 = iota
	factUser
	factResult
	factCall
	factReasoning
	factPinned uint8 = 1 << 7
)

// Rules a prune gives a message (pruneFacts.rules): none, or the rule's
// index in pruneRuleNames.
var pruneRuleNames = [...]string{"", ToolResultsRule, FailedTurnsRule}

func newPruneFacts(p PrunePolicy, n int) *pruneFacts {
	return &pruneFacts{kind: make([]uint8, 0, n), tokens: make([]int32, 0, n), failed: p.FailedTurns}
}

// add records m, the next message; it keeps none of m's memory.
func (f *pruneFacts) add(m *Message) {
	k := factOther
	switch {
	case m.Type == TypeMessage && m.Role == RoleUser:
		k = factUser
	case m.Type == TypeToolResult:
		k = factResult
	case m.Type == TypeToolCall:
		k = factCall
	case m.Type == TypeReasoning:
		k = factReasoning
	}
	pinned := m.Priority == Pinned
	if pinned {
		k |= factPinned
	}
	i := len(f.kind)
	f.kind, f.tokens = append(f.kind, k), append(f.tokens, int32(m.Tokens))
	if !f.failed || pinned {
		return
	}
	switch {
	case m.Type == TypeToolResult:
		f.results = append(f.results, prunedResult{i: i, commit: Hash(strings.Clone(string(m.Commit))), callID: strings.Clone(m.ToolCallID)})
	case m.Type == TypeToolCall && len(m.ToolCalls) > 0:
		ids := make([]string, len(m.ToolCalls))
		for j, tc := range m.ToolCalls {
			ids[j] = strings.Clone(tc.ID)
		}
		f.calls = append(f.calls, prunedCall{i: i, ids: ids})
	}
}

// rules is the rule p gives each message recorded (an index into
// pruneRuleNames), with how many it prunes and their tokens. FailedTurns
// reads the meta of each tool result's commit.
func (r *Repo) rules(ctx context.Context, f *pruneFacts, p PrunePolicy) (rule []uint8, count, tokens int, err error) {
	rule = make([]uint8, len(f.kind))
	if p.ToolResults {
		turnsAfter, results := 0, 0
		for i := len(f.kind) - 1; i >= 0; i-- {
			switch f.kind[i] &^ factPinned {
			case factUser:
				turnsAfter++
			case factResult:
				results++
				if results <= p.KeepLast || turnsAfter < p.OlderThan || int(f.tokens[i]) <= p.LargerThan || f.kind[i]&factPinned != 0 {
					continue
				}
				rule[i] = 1
			}
		}
	}
	if p.FailedTurns {
		if err := r.markFailedFacts(ctx, f, rule); err != nil {
			return nil, 0, 0, err
		}
	}
	for i, x := range rule {
		if x != 0 {
			count++
			tokens += int(f.tokens[i])
		}
	}
	return rule, count, tokens, nil
}

// markFailedFacts gives FailedTurnsRule (2) to each failed step: a tool
// result whose commit's meta says isError, the tool call message that
// asked for it when every call in it failed, and the reasoning messages
// right before that call. Pinned messages stay.
func (r *Repo) markFailedFacts(ctx context.Context, f *pruneFacts, rule []uint8) error {
	failed := map[string]bool{}
	for _, res := range f.results {
		c, err := r.store.Commit(ctx, res.commit)
		if err != nil {
			return err
		}
		var meta failedMeta
		if len(c.Meta) == 0 || json.Unmarshal(c.Meta, &meta, json.RejectUnknownMembers(false)) != nil || !meta.IsError {
			continue
		}
		rule[res.i] = 2
		if res.callID != "" {
			failed[res.callID] = true
		}
	}
	if len(failed) == 0 {
		return nil
	}
	for _, call := range f.calls {
		all := true
		for _, id := range call.ids {
			all = all && failed[id]
		}
		if !all {
			continue
		}
		rule[call.i] = 2
		for j := call.i - 1; j >= 0 && f.kind[j] == factReasoning; j-- {
			rule[j] = 2
		}
	}
	return nil
}
