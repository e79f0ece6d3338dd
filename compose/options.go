package compose

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/tokens"
	"github.com/agentlineage/lineage/skills"
	"github.com/agentlineage/lineage/tract"
	"github.com/agentlineage/lineage/tract/wire"
)

// Format is the shape of the request a compile renders: tract/wire's,
// the one format type of every face.
type Format = wire.Format

// Request formats.
const (
	// FormatOpenAI is the Chat Completions messages array.
	FormatOpenAI = wire.FormatOpenAI
	// FormatOpenAIRequest is a Chat Completions request body: model (when
	// given), messages and tools.
	FormatOpenAIRequest = wire.FormatOpenAIRequest
	// FormatAnthropic is the Messages API's system, messages and tools.
	FormatAnthropic = wire.FormatAnthropic
	// FormatAnthropicRequest is a Messages API request body: model and
	// max_tokens (when given), system, messages and tools.
	FormatAnthropicRequest = wire.FormatAnthropicRequest
	// FormatText is the context for reading.
	FormatText = wire.FormatText
)

// Formats lists the request formats.
func Formats() []Format {
	return []Format{FormatText, FormatOpenAI, FormatAnthropic, FormatOpenAIRequest, FormatAnthropicRequest}
}

// CheckFormat checks that f is one of [Formats].
func CheckFormat(f Format) error {
	if slices.Contains(Formats(), f) {
		return nil
	}
	return &ValidationError{Field: "format", Value: string(f), Reason: "want text, openai, anthropic, openai-request or anthropic-request"}
}

// DefaultProfileFields are the fields of the merged agent document the
// profile block renders, in this order: what instructs a model.
var DefaultProfileFields = []string{"role", "purpose", "responsibilities", "guardrails", "directives"}

// Options select what a compile composes.
type Options struct {
	// Target is the file or directory whose directory's AGENTS.md chain is
	// loaded (absolute, or relative to Instructions.Cwd); "" means
	// Instructions.Cwd.
	Target string
	// Instructions configure the chain: Config (caps, file names, root),
	// Cwd (absolute), Home, FS. Cwd is replaced by the target's directory.
	Instructions instructions.Options

	// Skills, when set, adds the Agent Skills catalog of the target's
	// directory to the system part, after the instructions (its Cwd, and
	// Root and Home when unset, come from Instructions). SkillsOmit, when
	// set, leaves skills out of it (the MCP server: outside its roots).
	Skills     *skills.Options
	SkillsOmit func(skills.Skill) bool

	// Slug names the agent whose merged profile joins the system part; ""
	// means none.
	Slug string
	// Agents are the options of the agent's chain; an empty Path means the
	// target's directory.
	Agents agents.Options
	// AgentsCheck, when set, sees the agent's resolved chain before its
	// documents are merged; an error stops the compile (the MCP server
	// refuses contexts outside its allowed roots this way).
	AgentsCheck func(*agents.Chain) error
	// ProfileFields are the merged document's fields the profile block
	// renders, in order; nil means [DefaultProfileFields].
	ProfileFields []string

	// Repo and Tract select the history; Tract "" means none.
	Repo  *tract.Repo
	Tract string
	// At compiles the tract as of this ref instead of HEAD.
	At string
	// Cold compiles the tract without its cache: what a process that
	// compiles once wants (see [tract.Repo.CompileCold]).
	Cold bool
	// Prune, when set, is the tract's compile-time prune policy: what it
	// selects is left out before the budget (tract.CompileOptions.Prune).
	Prune *tract.PrunePolicy

	// Budget, when positive, is the most tokens the request may use.
	Budget int
	// Encoding names the token encoding; "" means o200k_base.
	Encoding string

	// Counts, when set, remembers token counts between processes (see
	// [tokens.CountFile], the persistent layer of tokens.Shared); the
	// caller saves it.
	Counts *tokens.CountFile
	// Sources, when set, keeps the system part's sources between the
	// compiles of a process and reuses them while unchanged on disk (see
	// [Sources]).
	Sources *Sources
	// Scratch, when set, is memory the Result's Messages and Blocks are
	// built in, reused from the compile before (see [Scratch]).
	Scratch *Scratch

	// Format is the request's shape; "" means [FormatOpenAI].
	Format Format
	// Model and MaxTokens go into the request formats when set.
	Model     string
	MaxTokens int
}

// ValidationError is an option that is not acceptable.
type ValidationError struct {
	Field  string
	Value  string
	Reason string
}

func (e *ValidationError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Reason)
	}
	return fmt.Sprintf("%s %q: %s", e.Field, e.Value, e.Reason)
}

// Validate checks the options without touching a file or the store.
func (o Options) Validate() error {
	if !filepath.IsAbs(o.Instructions.Cwd) {
		return &ValidationError{Field: "cwd", Value: o.Instructions.Cwd, Reason: "must be an absolute path"}
	}
	if o.Slug != "" {
		if err := agents.ValidateSlug(o.Slug); err != nil {
			return &ValidationError{Field: "slug", Value: o.Slug, Reason: err.Error()}
		}
	}
	seen := map[string]bool{}
	for _, f := range o.ProfileFields {
		switch {
		case strings.TrimSpace(f) == "":
			return &ValidationError{Field: "profileFields", Reason: "a field name must not be empty"}
		case seen[f]:
			return &ValidationError{Field: "profileFields", Value: f, Reason: "listed twice"}
		}
		seen[f] = true
	}
	if o.Tract != "" && o.Repo == nil {
		return &ValidationError{Field: "tract", Value: o.Tract, Reason: "no tract store to read it from"}
	}
	if o.At != "" && o.Tract == "" {
		return &ValidationError{Field: "at", Value: o.At, Reason: "needs a tract"}
	}
	if o.Budget < 0 {
		return &ValidationError{Field: "budget", Value: fmt.Sprint(o.Budget), Reason: "must not be negative (0: no budget)"}
	}
	if o.Encoding != "" && !slices.Contains(tokens.Encodings(), o.Encoding) {
		return &ValidationError{Field: "encoding", Value: o.Encoding, Reason: "want " + strings.Join(tokens.Encodings(), " or ")}
	}
	if o.Format != "" {
		if err := CheckFormat(o.Format); err != nil {
			return err
		}
	}
	if o.MaxTokens < 0 {
		return &ValidationError{Field: "maxTokens", Value: fmt.Sprint(o.MaxTokens), Reason: "must not be negative"}
	}
	return nil
}

func (o Options) format() Format {
	if o.Format == "" {
		return FormatOpenAI
	}
	return o.Format
}

func (o Options) profileFields() []string {
	if o.ProfileFields == nil {
		return DefaultProfileFields
	}
	return o.ProfileFields
}
