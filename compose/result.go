package compose

import (
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
)

// Parts and sources of a block.
const (
	PartSystem   = "system"
	PartMessages = "messages"

	SourceInstructions = "instructions"
	SourceProfile      = "profile"
	SourceSkills       = "skills"
	SourceTract        = "tract"
)

// Reasons something was left out.
const (
	// ReasonCap: an instruction cap (initial.maxFiles, initial.maxBytes)
	// stopped the chain there.
	ReasonCap = "cap"
	// ReasonSkip: the file was not loaded for another reason (duplicate,
	// unreadable, not a regular file).
	ReasonSkip = "skip"
)

// Totals is what a Result and its Outline share: where the context was
// composed and what it counts.
type Totals struct {
	// Dir is the directory whose AGENTS.md chain was loaded.
	Dir  string `json:"dir"`
	Slug string `json:"slug,omitempty"`
	// Tract and Head are the compiled tract and the commit it was at.
	Tract    string     `json:"tract,omitempty"`
	Head     tract.Hash `json:"head,omitempty"`
	Encoding string     `json:"encoding"`
	Budget   *int       `json:"budget"`
	// Tokens is the request's count: Overhead plus every block's Tokens.
	Tokens int `json:"tokens"`
	// SystemTokens is what the pinned system part uses.
	SystemTokens int `json:"systemTokens"`
	// Overhead is counted once per request (the reply primer).
	Overhead int    `json:"overhead"`
	Format   Format `json:"format"`
}

// Result is a composed context: the request in its format and where every
// part of it came from.
type Result struct {
	Totals `json:",inline"`
	// Request is the request in Format: exactly its format's field is set
	// (it marshals as that field).
	Request wire.Rendered `json:"request"`
	// Blocks are the request's messages in order, each with its source.
	Blocks []Block `json:"blocks"`
	// Dropped are the instruction files left out, with the reason (cap,
	// skip).
	Dropped []Dropped `json:"dropped"`
	// DroppedMessages are the tract messages the budget left out (reason
	// budget), by tract's rules: NORMAL units oldest first, then IMPORTANT.
	// The slice is shared with the tract's compile cache: read it, do not
	// modify it.
	DroppedMessages []tract.Dropped `json:"droppedMessages"`
	// Pruned are the tract messages Options.Prune left out, each with
	// its rule (tract.ToolResultsRule, tract.FailedTurnsRule).
	Pruned []tract.Pruned `json:"pruned,omitempty"`
	// DroppedMessageCount and DroppedMessageTokens are the whole of what
	// the budget dropped (an [Outline] lists only the newest of them).
	DroppedMessageCount  int `json:"droppedMessageCount"`
	DroppedMessageTokens int `json:"droppedMessageTokens"`
	// Warnings are the instruction and agent findings met on the way.
	Warnings []string `json:"warnings"`

	// Messages are the composed messages, system part first, in the
	// tract's message form (Tokens set on every one).
	Messages []tract.Message `json:"-"`
	// Tools are the tract's latest tool definitions.
	Tools []tract.ToolDef `json:"-"`
}

// Block is one message of the request and its provenance.
type Block struct {
	Index  int    `json:"index"`
	Part   string `json:"part"`
	Source string `json:"source"`
	Role   string `json:"role"`
	// Tokens is what the block costs: Overhead plus its files' or fields'
	// tokens.
	Tokens int `json:"tokens"`
	// Overhead is the block's tokens no file or field carries: the
	// message's own and the block's frame (tags, separators).
	Overhead int           `json:"overhead"`
	Files    []FileSource  `json:"files,omitempty"`
	Fields   []FieldSource `json:"fields,omitempty"`
	// Skills are the entries of the skills catalog block.
	Skills []SkillSource `json:"skills,omitempty"`
	// Commit, Tract, SpawnPath, Type and Priority are a tract message's.
	Commit    tract.Hash     `json:"commit,omitempty"`
	Tract     string         `json:"tract,omitempty"`
	SpawnPath []string       `json:"spawnPath,omitempty"`
	Type      tract.Type     `json:"type,omitempty"`
	Priority  tract.Priority `json:"priority,omitempty"`
	// Summarizes lists, for a summary, the commits it stands in for.
	Summarizes []tract.Hash `json:"summarizes,omitempty"`
}

// FileSource is an AGENTS.md file of the instruction block.
type FileSource struct {
	Path      string `json:"path"`
	MtimeMs   int64  `json:"mtimeMs"`
	SizeBytes int64  `json:"sizeBytes"`
	// Tokens are the file's part of the block: its "Instructions from:"
	// line, content and separator.
	Tokens int `json:"tokens"`
}

// SkillSource is a skill of the catalog block: where its SKILL.md is
// (scope: project, extra or user; kind: the skill folder it was found in)
// and its entry's tokens.
type SkillSource struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Scope   string `json:"scope"`
	Kind    string `json:"kind"`
	MtimeNs int64  `json:"mtimeNs"`
	Size    int64  `json:"size"`
	Tokens  int    `json:"tokens"`
}

// FieldSource is a field of the profile block.
type FieldSource struct {
	Field string `json:"field"`
	// Tokens are the field's line(s) of the block.
	Tokens int `json:"tokens"`
	// Values say where each value of the field came from.
	Values []ValueSource `json:"values"`
	// TextFile is, for a persona or system-instructions text, the file
	// read (Values holds the field that named it).
	TextFile string `json:"textFile,omitempty"`
}

// ValueSource is one value of the merged profile and the layer it came
// from.
type ValueSource struct {
	// Pointer is the value's JSON pointer in the merged document.
	Pointer string `json:"pointer"`
	// File is the triad document the value came from.
	File string `json:"file"`
	// Layer is the document's position in the merge, 0 the most global.
	Layer int `json:"layer"`
	// Inherited: the layer was reached through inherits.
	Inherited bool `json:"inherited,omitempty"`
}

// Dropped is an instruction file the request leaves out, and why.
type Dropped struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
	Path   string `json:"path"`
	Detail string `json:"detail,omitempty"`
}
