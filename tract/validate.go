package tract

import (
	"fmt"
	"strings"
)

// Options validate themselves, so every face (CLI, MCP server, hooks, a Go
// program) applies the same rules before it opens a store, and the domain
// applies them again on entry. Each Validate returns a *ValidationError
// naming the field.

// Validate checks the options of a compile: the budget is 0 (none) or more.
func (o CompileOptions) Validate() error {
	return validBudget(o.Budget)
}

// Validate checks the options of a spawn: a known mode ("" is reference),
// a purpose and a budget of 0 or more.
func (o SpawnOptions) Validate() error {
	switch o.Mode {
	case "", SpawnReference, SpawnSnapshot, SpawnEmpty:
	default:
		return &ValidationError{Field: "spawn mode", Value: string(o.Mode), Reason: "want reference, snapshot or empty"}
	}
	if strings.TrimSpace(o.Purpose) == "" {
		return &ValidationError{Field: "purpose", Reason: "a spawn needs a purpose"}
	}
	return validBudget(o.Budget)
}

// Validate checks a commit before it is written: its content and, when
// set, its priority.
func (req CommitRequest) Validate() error {
	if _, err := req.Content.Normalize(); err != nil {
		return err
	}
	if req.Priority != "" {
		if _, err := ParsePriority(string(req.Priority)); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks the options of a log: N is 0 (all) or more.
func (o LogOptions) Validate() error {
	if o.N < 0 {
		return &ValidationError{Field: "max-count", Value: fmt.Sprint(o.N), Reason: "must be 0 or more"}
	}
	if o.Skip < 0 {
		return &ValidationError{Field: "skip", Value: fmt.Sprint(o.Skip), Reason: "must be 0 or more"}
	}
	if o.Type != "" {
		if _, ok := allowedRoles(o.Type); !ok {
			return &ValidationError{Field: "type", Value: string(o.Type), Reason: "want one of " + typeNames() + " or summary"}
		}
	}
	if o.Role != "" && !contains([]string{RoleSystem, RoleUser, RoleAssistant, RoleTool}, o.Role) {
		return &ValidationError{Field: "role", Value: o.Role, Reason: "want system, user, assistant or tool"}
	}
	if o.Tag != "" {
		if err := validateTagMatch(o.Tag); err != nil {
			return err
		}
	}
	if o.Operation != "" && !contains([]string{string(OpAppend), string(OpEdit), string(OpMerge), string(OpCompress)}, string(o.Operation)) {
		return &ValidationError{Field: "operation", Value: string(o.Operation), Reason: "want append, edit, merge or compress"}
	}
	return nil
}

// Validate checks the options of a merge: the strategy is "", ours or
// theirs.
func (o MergeOptions) Validate() error {
	if o.Strategy != "" && o.Strategy != StrategyOurs && o.Strategy != StrategyTheirs {
		return &ValidationError{Field: "strategy", Value: o.Strategy, Reason: "want ours or theirs"}
	}
	if len(o.Message) > MaxMessageBytes {
		return &ValidationError{Field: "commit message", Reason: fmt.Sprintf("%d bytes, the limit is %d", len(o.Message), MaxMessageBytes)}
	}
	return nil
}

// ParseMark is the priority a commit may be marked with as it is written
// (the CLI's --pin and --skip): pinned, skip, or "" for none.
func ParseMark(s string) (Priority, error) {
	switch p := Priority(s); p {
	case "", Pinned, Skip:
		return p, nil
	}
	return "", &ValidationError{Field: "priority", Value: s, Reason: "want pinned or skip"}
}

func validBudget(b int) error {
	if b < 0 {
		return &ValidationError{Field: "budget", Value: fmt.Sprint(b), Reason: "must be positive"}
	}
	return nil
}
