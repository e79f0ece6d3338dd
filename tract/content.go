package tract

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Type is a content type.
type Type string

// Content types.
const (
	TypeInstruction Type = "instruction"
	TypeMessage     Type = "message"
	TypeToolCall    Type = "tool_call"
	TypeToolResult  Type = "tool_result"
	TypeReasoning   Type = "reasoning"
	TypeArtifact    Type = "artifact"
	TypeMetadata    Type = "metadata"
	// TypeTools holds the tool definitions a request offers the model; the
	// latest in the linearization is compiled beside the messages.
	TypeTools Type = "tools"
	// TypeSummary is the content of a compress commit; only compress makes
	// one, so it is not among the Types a commit may name.
	TypeSummary Type = "summary"
)

// CustomTypePrefix starts the name of a custom content type: "x-" and a
// name of one to 62 lowercase letters, digits, '_', '-' or '.', starting
// with a letter or digit ("x-plan", "x-acme.ticket"). A custom type needs
// no registration, so every process and store reads it the same way: its
// content is text (structured data goes in as JSON text) with the role
// user (default), assistant or system, compiled as a message of that role
// at normal priority (annotate, --pin or --skip change that), searchable
// and filterable by its name like any type.
const CustomTypePrefix = "x-"

// CustomType is the custom content type of name (see CustomTypePrefix).
func CustomType(name string) (Type, error) {
	t := Type(CustomTypePrefix + name)
	if !t.Custom() {
		return "", &ValidationError{Field: "type", Value: string(t), Reason: "a custom type's name is 1 to 62 lowercase letters, digits, '_', '-' or '.', starting with a letter or digit"}
	}
	return t, nil
}

// Custom reports whether t is a well-formed custom content type.
func (t Type) Custom() bool {
	name, ok := strings.CutPrefix(string(t), CustomTypePrefix)
	if !ok || len(name) == 0 || len(name) > 62 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch ch := name[i]; {
		case ch >= 'a' && ch <= 'z', ch >= '0' && ch <= '9':
		case i > 0 && (ch == '_' || ch == '-' || ch == '.'):
		default:
			return false
		}
	}
	return true
}

// Types lists every content type in the order the spec gives them.
var Types = []Type{TypeInstruction, TypeMessage, TypeToolCall, TypeToolResult, TypeReasoning, TypeArtifact, TypeMetadata, TypeTools}

// Roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// ToolCall is one function call an assistant asks for.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Content is what a blob holds: one piece of context. Its canonical JSON is
// the blob's bytes; the SHA-256 of those bytes is the blob's hash.
type Content struct {
	Type       Type       `json:"type"`
	Role       string     `json:"role,omitempty"`
	Name       string     `json:"name,omitempty"`
	Text       string     `json:"text,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	// Tools are the definitions of a tools commit.
	Tools []ToolDef `json:"tools,omitempty"`
	// Seed marks the first commit of a snapshot or empty spawn: the parent
	// already has this context, so the parent's compile leaves it out.
	Seed bool `json:"seed,omitzero"`
	// From is a summary's oldest replaced commit (the range's newest is the
	// compress commit's edit target).
	From Hash `json:"from,omitempty"`
}

// defaultRole and allowedRoles encode the spec's role table.
var (
	defaultRole = map[Type]string{
		TypeInstruction: RoleSystem, TypeMessage: RoleUser, TypeToolCall: RoleAssistant,
		TypeToolResult: RoleTool, TypeReasoning: RoleAssistant, TypeArtifact: RoleUser,
		TypeSummary: RoleUser,
	}
)

// allowedRoles is the roles content of type t may take; ok is false for an
// unknown type. A switch, not a map: nothing to build at init.
func allowedRoles(t Type) (roles []string, ok bool) {
	switch t {
	case TypeInstruction:
		return []string{RoleSystem}, true
	case TypeMessage, TypeArtifact:
		return []string{RoleUser, RoleAssistant, RoleSystem}, true
	case TypeToolCall, TypeReasoning:
		return []string{RoleAssistant}, true
	case TypeToolResult:
		return []string{RoleTool}, true
	case TypeMetadata, TypeTools:
		return []string{""}, true
	case TypeSummary:
		return []string{RoleUser, RoleAssistant}, true
	}
	if t.Custom() {
		return []string{RoleUser, RoleAssistant, RoleSystem}, true
	}
	return nil, false
}

// DefaultPriority is the priority of a content type without annotations.
func DefaultPriority(t Type) Priority {
	switch t {
	case TypeInstruction:
		return Pinned
	case TypeReasoning, TypeMetadata:
		return Skip
	}
	return Normal
}

// Normalize fills the default role and validates c: a known type, a role
// the type allows, a tool call id on tool results, well-formed tool calls.
func (c Content) Normalize() (Content, error) {
	roles, ok := allowedRoles(c.Type)
	if !ok && strings.HasPrefix(string(c.Type), CustomTypePrefix) {
		_, err := CustomType(strings.TrimPrefix(string(c.Type), CustomTypePrefix))
		return c, err
	}
	if !ok {
		names := make([]string, len(Types))
		for i, t := range Types {
			names[i] = string(t)
		}
		return c, &ValidationError{Field: "type", Value: string(c.Type), Reason: "unknown content type (want one of " + strings.Join(names, ", ") + ", or x-NAME for a custom type)"}
	}
	if c.Role == "" {
		c.Role = defaultRole[c.Type]
		if c.Type.Custom() {
			c.Role = RoleUser
		}
	}
	for _, f := range []struct{ name, value string }{{"text", c.Text}, {"name", c.Name}, {"role", c.Role}, {"tool-call-id", c.ToolCallID}} {
		if !utf8.ValidString(f.value) {
			return c, &ValidationError{Field: f.name, Reason: "not valid UTF-8"}
		}
	}
	if !contains(roles, c.Role) {
		return c, &ValidationError{Field: "role", Value: c.Role, Reason: fmt.Sprintf("not allowed for %s (want %s)", c.Type, strings.Join(nonEmpty(roles), ", "))}
	}
	if c.Type == TypeToolResult && c.ToolCallID == "" {
		return c, &ValidationError{Field: "tool-call-id", Reason: "a tool_result needs the id of the tool call it answers"}
	}
	if c.Type != TypeToolResult && c.ToolCallID != "" {
		return c, &ValidationError{Field: "tool-call-id", Value: c.ToolCallID, Reason: "only a tool_result answers a tool call"}
	}
	if c.Type == TypeToolCall && len(c.ToolCalls) == 0 {
		return c, &ValidationError{Field: "tool_calls", Reason: "a tool_call needs at least one call"}
	}
	if c.Type == TypeSummary && c.From == "" {
		return c, &ValidationError{Field: "type", Value: string(c.Type), Reason: "a summary is made by 'lineage tract compress FROM..TO'"}
	}
	if c.Type != TypeSummary && c.From != "" {
		return c, &ValidationError{Field: "from", Value: string(c.From), Reason: "only a summary names the range it replaces"}
	}
	if c.Type != TypeToolCall && len(c.ToolCalls) > 0 {
		return c, &ValidationError{Field: "tool_calls", Reason: "only a tool_call carries tool calls"}
	}
	if err := checkTools(c.Type, c.Tools); err != nil {
		return c, err
	}
	if c.Type == TypeTools && c.Text != "" {
		return c, &ValidationError{Field: "text", Reason: "a tools commit holds tool definitions, not text"}
	}
	for i, tc := range c.ToolCalls {
		if tc.ID == "" || tc.Name == "" {
			return c, &ValidationError{Field: fmt.Sprintf("tool_calls[%d]", i), Reason: "needs an id and a name"}
		}
		args := tc.Arguments
		if args == "" {
			args = "{}"
		}
		v := jsontext.Value(args)
		if !v.IsValid() || v.Kind() != '{' {
			return c, &ValidationError{Field: fmt.Sprintf("tool_calls[%d].arguments", i), Value: tc.Arguments, Reason: "not a JSON object"}
		}
		c.ToolCalls[i].Arguments = args
	}
	return c, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func nonEmpty(list []string) []string {
	var out []string
	for _, s := range list {
		if s == "" {
			s = "none"
		}
		out = append(out, s)
	}
	return out
}

// RenderedText is the text the tokenizer counts for c: the text, then each
// tool call's name and arguments.
func (c Content) RenderedText() string {
	if len(c.ToolCalls) == 0 {
		return c.Text
	}
	var b strings.Builder
	b.WriteString(c.Text)
	for _, tc := range c.ToolCalls {
		b.WriteString(tc.Name)
		b.WriteString(tc.Arguments)
	}
	return b.String()
}

// Blob is stored content: the canonical JSON bytes of a [Content], addressed
// by their SHA-256.
type Blob struct {
	Hash Hash
	Data []byte
	// Tokens is the token count of the content's rendered text in Encoding;
	// -1 when not counted yet for the encoding asked for.
	Tokens   int
	Encoding string
}

// Size is the blob's size in bytes.
func (b Blob) Size() int { return len(b.Data) }

// NewBlob encodes c canonically and hashes it.
func NewBlob(c Content) (Blob, error) {
	data, err := canonicalContent(c)
	if err != nil {
		return Blob{}, err
	}
	if len(data) > MaxContentBytes {
		return Blob{}, &ValidationError{Field: "content", Reason: fmt.Sprintf("%d bytes, the limit for one commit is %d", len(data), MaxContentBytes)}
	}
	return Blob{Hash: sha256Hex(data), Data: data, Tokens: -1}, nil
}
