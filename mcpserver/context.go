package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/compose"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/skills"
)

// ContextInput are the arguments of context_compile (as lineage context).
type ContextInput struct {
	Target    string `json:"target,omitempty" jsonschema:"file or directory whose AGENTS.md chain is loaded (absolute, or relative to the working directory); default: the working directory"`
	Slug      string `json:"slug,omitempty" jsonschema:"agent whose merged profile joins the system part (default: none)"`
	Tract     string `json:"tract,omitempty" jsonschema:"tract whose history fills the messages (default: none)"`
	At        string `json:"at,omitempty" jsonschema:"compile the tract as of this ref"`
	Budget    int    `json:"budget,omitempty" jsonschema:"most tokens the whole request may use (0: no budget); the pinned system part is never cut"`
	Format    string `json:"format,omitempty" jsonschema:"openai (default), anthropic, openai-request, anthropic-request or text: the shape of request"`
	Encoding  string `json:"encoding,omitempty" jsonschema:"token encoding: o200k_base (default) or cl100k_base"`
	Model     string `json:"model,omitempty" jsonschema:"model name the request formats carry"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"reply token limit the request formats carry"`
}

// ContextOutput is context_compile's structured result: the compile's
// outline — totals, the instruction, skills and profile blocks in full, the
// tract's messages and the dropped ones as runs — and where the request
// is. The request itself is the text content (Inline), else in Resource.
type ContextOutput struct {
	compose.Outline `json:",inline"`
	// Inline: the text content is the request. Otherwise the result would
	// pass the server's size limit and the text content says to read the
	// request from Resource.
	Inline bool `json:"inline" jsonschema:"true: the text content is the request (JSON formats: one member or element per line); false: it was too long, read request from resource"`
	// Resource is the whole compile as lineage context --json prints it
	// (every block, every dropped message), at the compiled head.
	Resource string `json:"resource" jsonschema:"URI of the whole compile as lineage context --json prints it (the request, every block and every dropped message), at the compiled head"`
}

// How many runs an outline lists (the newest): typical requests have a
// handful; the bounds keep the result small when priorities or author
// tracts alternate.
const (
	maxContextRuns        = 32
	maxContextDroppedRuns = 8
)

// ContextTemplate is the resource of a whole compile.
const (
	contextURIBase  = "lineage://context"
	ContextTemplate = contextURIBase + "{?target,slug,tract,at,budget,format,encoding,model,maxTokens}"
)

// contextTool is context_compile as listed.
func contextTool() *mcp.Tool {
	schema, err := jsonschema.ForType(reflect.TypeFor[ContextOutput](), nil)
	if err != nil {
		panic(fmt.Sprintf("tool context_compile: output schema: %v", err))
	}
	return &mcp.Tool{
		Name:  "context_compile",
		Title: "Compile one model request",
		Description: "The whole context of one model request, as `lineage context`: the AGENTS.md chain of the target's " +
			"directory, the merged profile of an agent (slug) and the pinned system messages of a tract first, then the " +
			"tract's history under what the budget leaves. The text content is the request (JSON formats with one member " +
			"or element per line); the structured result says where every block came from (instruction files, profile " +
			"fields; the tract's messages as runs of commits) and what was left out and why, and names a resource with " +
			"the whole `lineage context --json` (every block, every dropped message).",
		Annotations:  hints(true, false, true),
		InputSchema:  withEnums[ContextInput](map[string][]string{"format": strs(compose.Formats()...)}),
		OutputSchema: objectSchema(schema),
	}
}

func (s *Server) addContextTools() {
	addEncodedTool(s, contextTool(), s.toolContext)
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: ContextTemplate,
		Name:        "context",
		Title:       "One model request with its provenance",
		Description: "A compile as `lineage context --json` prints it: the request and the source of every block, every dropped message; context_compile names the one it answered.",
		MIMEType:    "application/json",
	}, coded(s.readContext))
}

func (s *Server) toolContext(ctx context.Context, req *mcp.CallToolRequest, in ContextInput) (*mcp.CallToolResult, ContextOutput, error) {
	sc, ask := s.callScope(ctx, req)
	if ask != nil {
		return ask, ContextOutput{}, nil
	}
	if err := checkContextInput(in); err != nil {
		return nil, ContextOutput{}, err
	}
	// The compile's messages and blocks are built in a scratch of the
	// server's: everything that points into them (the request) is
	// encoded before the call returns and puts it back.
	scratch, _ := s.scratch.Get().(*compose.Scratch)
	if scratch == nil {
		scratch = &compose.Scratch{}
	}
	defer s.scratch.Put(scratch)
	res, err := s.compileContext(ctx, sc, in, scratch)
	if err != nil {
		return nil, ContextOutput{}, err
	}
	out := ContextOutput{Outline: res.Outline(maxContextRuns, maxContextDroppedRuns), Inline: true, Resource: contextURI(res, in)}
	b, err := marshalResult(out)
	if err != nil {
		return nil, ContextOutput{}, err
	}
	text, n, quoted, err := s.fitText(res, b)
	if err != nil {
		return nil, ContextOutput{}, err
	}
	if n > s.opts.MaxResultTokens {
		quoted = nil
		out.Inline = false
		text = fmt.Sprintf("The request (%s, %d tokens, %d messages) is too long for one result: read it from the resource %s (its \"request\").",
			res.Format, res.Tokens, len(res.Blocks), out.Resource)
		if b, err = marshalResult(out); err != nil {
			return nil, ContextOutput{}, err
		}
		if len(b) > s.opts.MaxResultTokens {
			// The outline alone is too long (a profile of very many
			// fields, say): its blocks keep their totals, their sources
			// are in the resource.
			trimOutline(&out.Outline)
			if b, err = marshalResult(out); err != nil {
				return nil, ContextOutput{}, err
			}
		}
	}
	res2 := &mcp.CallToolResult{StructuredContent: b}
	if text != "" {
		tc := &mcp.TextContent{Text: text}
		res2.Content = []mcp.Content{tc}
		if quoted != nil {
			s.quoted.put(tc, quoted)
		}
	}
	return res2, out, nil
}

// tooLongFactor: a request whose own count (res.Tokens, its messages'
// and blocks' tokens) is over this many times the limit is never inline
// and its text is not rendered: the text holds every message's content,
// and no tokenizer counts the same content at half in another encoding.
const tooLongFactor = 2

// fitText is [Server.inlineText] under what the structured part b
// leaves of the result's limit; n is the whole result's count (past the
// limit: more than it). b counts a token per byte (a token is at least a
// byte), which is enough for most answers; only when that keeps out a
// request that could fit (a profile and many instruction files make a
// long outline beside a budgeted request) are b's tokens counted.
func (s *Server) fitText(res compose.Result, b []byte) (text string, n int, quoted [][]byte, err error) {
	limit := s.opts.MaxResultTokens
	text, n, quoted, err = s.inlineText(res, max(limit-len(b), 0))
	if err != nil || len(b)+n <= limit || res.Tokens > tooLongFactor*limit {
		return text, len(b) + n, quoted, err
	}
	bt := s.opts.Tokens.Count(string(b))
	text, n, quoted, err = s.inlineText(res, max(limit-bt, 0))
	return text, bt + n, quoted, err
}

// inlineText renders res's request and counts its tokens against limit
// (see [lineCounts.countQuoted]): the text, its count (past limit: more
// than limit) and its JSON string form in pieces (nil past limit). A
// request far past the limit by its own count is neither rendered nor
// tokenized: the first call on a long history costs only the compile.
func (s *Server) inlineText(res compose.Result, limit int) (string, int, [][]byte, error) {
	if res.Tokens > tooLongFactor*max(limit, 1) {
		return "", limit + 1, nil, nil
	}
	text, err := s.texts.Text(res)
	if err != nil {
		return "", 0, nil, err
	}
	// The structured part counts a token per byte (a token is at least a
	// byte): only the request is worth tokenizing, and only its new lines
	// (the last one only when its bytes would not fit); its JSON string
	// form is made of its lines' too (wireResult writes it).
	n, quoted, err := s.lines.countQuoted(s.opts.Tokens, text, true, limit)
	return text, n, quoted, err
}

// maxModelBytes bounds the model name a request carries: a name is short,
// and it is repeated in the result's resource URI.
const maxModelBytes = 256

// maxOutlineWarnings bounds the warnings a trimmed outline keeps.
const maxOutlineWarnings = 20

// checkContextInput refuses arguments that would make the result larger
// than any request needs.
func checkContextInput(in ContextInput) error {
	if len(in.Model) > maxModelBytes {
		return fmt.Errorf("model: %d bytes, the limit is %d", len(in.Model), maxModelBytes)
	}
	if len(in.Encoding) > maxModelBytes {
		return fmt.Errorf("encoding: %d bytes, the limit is %d", len(in.Encoding), maxModelBytes)
	}
	return nil
}

// trimOutline drops the per-file, per-field and per-skill sources of the
// outline's blocks (each block keeps its tokens) and all but the first
// warnings, saying so in a warning: the resource has them all.
func trimOutline(o *compose.Outline) {
	n := 0
	for i := range o.Blocks {
		b := &o.Blocks[i]
		n += len(b.Files) + len(b.Fields) + len(b.Skills)
		b.Files, b.Fields, b.Skills, b.Summarizes = nil, nil, nil, nil
	}
	if len(o.Warnings) > maxOutlineWarnings {
		o.Warnings = o.Warnings[:maxOutlineWarnings]
	}
	o.Warnings = append(o.Warnings, fmt.Sprintf("the blocks' %d sources are too many for one result: read them from the resource", n))
}

// compileContext compiles what in asks for within sc.
func (s *Server) compileContext(ctx context.Context, sc scope, in ContextInput, scratch *compose.Scratch) (compose.Result, error) {
	target, err := sc.path("target", in.Target)
	if err != nil {
		return compose.Result{}, err
	}
	io := s.instructionOptions(sc.work, sc)
	o := compose.Options{
		Target:       target,
		Instructions: io,
		Sources:      s.sourcesFor(sc, io),
		Scratch:      scratch,
		Slug:         in.Slug,
		AgentsCheck:  func(ch *agents.Chain) error { return checkChain(sc, ch) },
		Tract:        in.Tract,
		At:           in.At,
		Budget:       in.Budget,
		Encoding:     in.Encoding,
		Format:       compose.Format(in.Format),
		Model:        in.Model,
		MaxTokens:    in.MaxTokens,
	}
	if !s.opts.Skills.Disabled {
		o.Skills = &skills.Options{User: s.opts.Skills.User, Extra: s.opts.Skills.Extra, CacheDir: s.opts.Skills.CacheDir}
		o.SkillsOmit = func(sk skills.Skill) bool { return sk.Scope == skills.ScopeProject && sc.roots.Check(sk.Path) != nil }
	}
	if in.Tract != "" {
		if o.Repo, err = s.tracts.get(ctx); err != nil {
			return compose.Result{}, err
		}
	}
	return compose.Compile(ctx, o)
}

// sourcesFor is the compose.Sources of the compiles in sc: one per
// allowed roots, working directory and project root (what the
// instruction options, their confinement included, depend on besides the
// target).
func (s *Server) sourcesFor(sc scope, io instructions.Options) *compose.Sources {
	key := strings.Join(sc.roots.Dirs(), "\x00") + "\x01" + sc.work
	if c, ok := io.FS.(confinedFS); ok {
		key += "\x01" + strings.Join(c.project.Dirs(), "\x00")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if src, ok := s.sources[key]; ok {
		return src
	}
	if len(s.sources) >= maxScopeSources {
		clear(s.sources)
	}
	src := compose.NewSources()
	s.sources[key] = src
	return src
}

// maxScopeSources bounds the scopes whose sources a server keeps.
const maxScopeSources = 32

// contextURI names the whole compile res answered for in: the same
// arguments, the chain's directory for the target and the compiled head
// for at, so reading it later gives this compile even after more commits.
func contextURI(res compose.Result, in ContextInput) string {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("target", res.Dir)
	set("slug", in.Slug)
	set("tract", in.Tract)
	if in.Tract != "" {
		set("at", string(res.Head))
	}
	if in.Budget > 0 {
		set("budget", strconv.Itoa(in.Budget))
	}
	set("format", in.Format)
	set("encoding", in.Encoding)
	set("model", in.Model)
	if in.MaxTokens > 0 {
		set("maxTokens", strconv.Itoa(in.MaxTokens))
	}
	return contextURIBase + "?" + q.Encode()
}

func (s *Server) readContext(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	u, err := url.Parse(req.Params.URI)
	if err != nil || u.Scheme+"://"+u.Host+u.Path != contextURIBase {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	q := u.Query()
	in := ContextInput{Target: q.Get("target"), Slug: q.Get("slug"), Tract: q.Get("tract"), At: q.Get("at"),
		Format: q.Get("format"), Encoding: q.Get("encoding"), Model: q.Get("model")}
	for _, n := range []struct {
		name string
		to   *int
	}{{"budget", &in.Budget}, {"maxTokens", &in.MaxTokens}} {
		if v := q.Get(n.name); v != "" {
			if *n.to, err = strconv.Atoi(v); err != nil || *n.to < 0 {
				return nil, invalidParams("%s: want a whole number, got %q", n.name, v)
			}
		}
	}
	sc := s.scopeOf(s.cachedRoots(req.Session))
	if _, err := sc.path("target", in.Target); err != nil {
		return nil, invalidParams("%v", err)
	}
	res, err := s.compileContext(ctx, sc, in, nil)
	var ve *compose.ValidationError
	if errors.As(err, &ve) {
		return nil, invalidParams("%v", err)
	}
	if err != nil {
		return nil, notFound(req.Params.URI, err)
	}
	text, mime, err := jsonText(res)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Text: text}}}, nil
}
