package memory

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/tract"
)

// Kind is a memory's scope: whose it is.
type Kind string

const (
	// User memories apply to the user everywhere.
	User Kind = "user"
	// Project memories apply in one project folder.
	Project Kind = "project"
	// Agent memories belong to one CLIA agent (its slug).
	Agent Kind = "agent"
)

// Kinds are the scopes, in the order lists name them.
var Kinds = []Kind{User, Project, Agent}

// ParseKind reads a scope's name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", &tract.ValidationError{Field: "scope", Value: s, Reason: "want user, project or agent"}
}

// MaxTextBytes is the longest memory: a memory is a fact or a preference,
// not a document.
const MaxTextBytes = 4096

// ContentType is the tract content type of a memory's commit.
const ContentType tract.Type = "x-memory"

// forgetReason is the reason of the skip annotation that forgets one.
const forgetReason = "memory: forgotten"

// Where is whose memories a caller sees: the user's, the project's of its
// folder and the agent's it names. Nothing of another user, project or
// agent is read.
type Where struct {
	// User names the user (required): the user scope's key.
	User string
	// Project is the project folder (absolute), "" for none.
	Project string
	// Slug is the CLIA agent, "" for none.
	Slug string
	// Cwd is the caller's folder: memories saved there or above it rank
	// first.
	Cwd string
}

// Scope is one scope of a Where: its kind and key (the user's name, the
// project folder, the slug).
type Scope struct {
	Kind Kind
	Key  string
	// User owns the scope: every scope is one user's, so a store several
	// users share keeps their project and agent memories apart too.
	User string
}

// Scope is w's scope of kind k, or an error naming what w lacks.
func (w Where) Scope(k Kind) (Scope, error) {
	var key, lack string
	switch k {
	case User:
		key, lack = w.User, "no user name"
	case Project:
		key, lack = w.Project, "no project folder"
	case Agent:
		key, lack = w.Slug, "no agent: pass --slug"
		if key != "" {
			if err := agents.ValidateSlug(key); err != nil {
				return Scope{}, &tract.ValidationError{Field: "slug", Value: key, Reason: err.Error()}
			}
			if tract.ValidateTractName(TractName(Scope{Kind: Agent, Key: key, User: w.User})) != nil {
				return Scope{}, &tract.ValidationError{Field: "slug", Value: key, Reason: "not usable in a tract name (no space, control character, ~^:?*[\\ or \"..\")"}
			}
		}
	default:
		return Scope{}, &tract.ValidationError{Field: "scope", Value: string(k), Reason: "want user, project or agent"}
	}
	if key == "" {
		return Scope{}, &tract.ValidationError{Field: "scope", Value: string(k), Reason: lack}
	}
	if w.User == "" {
		return Scope{}, &tract.ValidationError{Field: "scope", Value: string(k), Reason: "no user name"}
	}
	if k == Project {
		key = filepath.Clean(key)
	}
	return Scope{Kind: k, Key: key, User: w.User}, nil
}

// Scopes are the scopes w sees, in Kinds order.
func (w Where) Scopes() []Scope {
	var out []Scope
	for _, k := range Kinds {
		if s, err := w.Scope(k); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// TractName is the tract that holds the memories of s, named by a hash of
// its user and key: memory-user-<hash>, memory-project-<hash>,
// memory-agent-<slug>-<hash>.
func TractName(s Scope) string {
	sum := sha256.Sum256([]byte(string(s.Kind) + "\x00" + s.User + "\x00" + s.Key))
	h := hex.EncodeToString(sum[:6])
	if s.Kind == Agent {
		return "memory-agent-" + s.Key + "-" + h
	}
	return "memory-" + string(s.Kind) + "-" + h
}

// Memory is one memory as a reader sees it now.
type Memory struct {
	// ID is the short hash of the commit that added it ("" for a memory a
	// harness keeps itself).
	ID    string `json:"id,omitempty"`
	Scope Kind   `json:"scope"`
	// Project or Slug is the scope's key (a user scope's is never shown).
	Project string `json:"project,omitempty"`
	Slug    string `json:"slug,omitempty"`
	Text    string `json:"text"`
	// Source is who keeps it: lineage, claude (auto memory), gemini
	// (GEMINI.md), journal (the agent's agency journal).
	Source string `json:"source"`
	// File is the file a harness or journal memory was read from.
	File string `json:"file,omitempty"`
	// Session, Harness and Cwd say where it was saved.
	Session string    `json:"session,omitempty"`
	Harness string    `json:"harness,omitempty"`
	Cwd     string    `json:"cwd,omitempty"`
	Created time.Time `json:"created,omitzero"`
	// Edited is the time of its newest edit.
	Edited time.Time  `json:"edited,omitzero"`
	Commit tract.Hash `json:"commit,omitempty"`
	Tract  string     `json:"tract,omitempty"`
}

// Newest is the memory's latest time: its newest edit, else its making.
func (m Memory) Newest() time.Time {
	if m.Edited.After(m.Created) {
		return m.Edited
	}
	return m.Created
}

// provenance is the metadata of a memory's commit.
type provenance struct {
	Scope   Kind   `json:"scope"`
	Project string `json:"project,omitempty"`
	Slug    string `json:"slug,omitempty"`
	Session string `json:"session,omitempty"`
	Harness string `json:"harness,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
}

type meta struct {
	Memory provenance `json:"memory"`
}

// ValidateText checks a memory's text: not blank, valid UTF-8, at most
// MaxTextBytes, no control characters but newline and tab.
func ValidateText(text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return &tract.ValidationError{Field: "memory text", Reason: "empty"}
	case !utf8.ValidString(text):
		return &tract.ValidationError{Field: "memory text", Value: text, Reason: "not valid UTF-8"}
	case len(text) > MaxTextBytes:
		return &tract.ValidationError{Field: "memory text", Value: text, Reason: fmt.Sprintf("%d bytes, the limit is %d", len(text), MaxTextBytes)}
	}
	for _, r := range text {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return &tract.ValidationError{Field: "memory text", Value: text, Reason: fmt.Sprintf("control character %U", r)}
		}
	}
	return nil
}

// AddOptions are a new memory: its scope (of Where), text and where it
// was said.
type AddOptions struct {
	Where   Where
	Kind    Kind
	Text    string
	Session string
	Harness string
}

// Add saves a new memory: one commit on its scope's tract (made when
// missing).
func Add(ctx context.Context, repo *tract.Repo, o AddOptions) (Memory, error) {
	s, err := o.Where.Scope(o.Kind)
	if err != nil {
		return Memory{}, err
	}
	text := strings.TrimSpace(o.Text)
	if err := ValidateText(text); err != nil {
		return Memory{}, err
	}
	p := provenance{Scope: s.Kind, Session: o.Session, Harness: o.Harness, Cwd: o.Where.Cwd}
	switch s.Kind {
	case Project:
		p.Project = s.Key
	case Agent:
		p.Slug = s.Key
	}
	raw, err := json.Marshal(meta{Memory: p})
	if err != nil {
		return Memory{}, err
	}
	name := TractName(s)
	if err := ensureTract(ctx, repo, name); err != nil {
		return Memory{}, err
	}
	c, err := repo.Commit(ctx, name, tract.CommitRequest{Content: tract.Content{Type: ContentType, Role: "user", Text: text},
		Message: "memory: add", Meta: raw})
	if err != nil {
		return Memory{}, err
	}
	return fromCommit(c.Hash, p, text, c.Time, name), nil
}

// ensureTract makes the tract when missing; another process making it
// at the same time is no error.
func ensureTract(ctx context.Context, repo *tract.Repo, name string) error {
	if _, err := repo.Tract(ctx, name); err == nil || !errors.Is(err, tract.ErrNotFound) {
		return err
	}
	if _, err := repo.NewTract(ctx, name); err != nil && !errors.Is(err, tract.ErrExists) {
		return err
	}
	return nil
}

func fromCommit(h tract.Hash, p provenance, text string, t time.Time, tractName string) Memory {
	return Memory{ID: h.Short(), Scope: p.Scope, Project: p.Project, Slug: p.Slug, Text: text, Source: "lineage",
		Session: p.Session, Harness: p.Harness, Cwd: p.Cwd, Created: t.UTC(), Commit: h, Tract: tractName}
}

// List is the lineage memories of w's scopes (not forgotten, edits
// applied), newest first. A nil repo (no store yet) holds none.
func List(ctx context.Context, repo *tract.Repo, w Where) ([]Memory, error) {
	out := []Memory{}
	if repo == nil {
		return out, nil
	}
	for _, s := range w.Scopes() {
		ms, err := listScope(ctx, repo, TractName(s))
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	sortNewest(out)
	return out, nil
}

func sortNewest(ms []Memory) {
	slices.SortStableFunc(ms, func(a, b Memory) int {
		return cmp.Or(b.Newest().Compare(a.Newest()), strings.Compare(string(a.Commit), string(b.Commit)))
	})
}

// listScope reads one scope's tract: its compile (what is not forgotten,
// with edits applied) and its log (provenance, times of edits).
func listScope(ctx context.Context, repo *tract.Repo, name string) ([]Memory, error) {
	if _, err := repo.Tract(ctx, name); errors.Is(err, tract.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	res, err := repo.Compile(ctx, name, tract.CompileOptions{Uncounted: true})
	if errors.Is(err, tract.ErrNoCommits) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	log, err := repo.Log(ctx, name, tract.LogOptions{})
	if err != nil {
		return nil, err
	}
	byHash := make(map[tract.Hash]tract.LogEntry, len(log))
	edited := map[tract.Hash]time.Time{}
	for _, e := range log {
		byHash[e.Hash] = e
		if e.EditTarget != "" && e.Time.After(edited[e.EditTarget]) {
			edited[e.EditTarget] = e.Time
		}
	}
	var out []Memory
	for _, msg := range res.Messages {
		e, ok := byHash[msg.Commit]
		if ok && e.EditTarget != "" {
			e, ok = byHash[e.EditTarget]
		}
		if !ok || e.Type != ContentType {
			continue
		}
		var m meta
		if len(e.Meta) > 0 {
			if err := json.Unmarshal(e.Meta, &m); err != nil {
				return nil, fmt.Errorf("memory %s: %w", e.Hash.Short(), err)
			}
		}
		mem := fromCommit(e.Hash, m.Memory, msg.Content, e.Time, name)
		mem.Edited = edited[e.Hash].UTC()
		out = append(out, mem)
	}
	return out, nil
}

// Get is the memory of w's scopes whose ID (or commit hash) starts with
// id.
func Get(ctx context.Context, repo *tract.Repo, w Where, id string) (Memory, error) {
	id = strings.TrimSpace(id)
	if len(id) < 4 || strings.Trim(strings.ToLower(id), "0123456789abcdef") != "" {
		return Memory{}, &tract.ValidationError{Field: "memory id", Value: id, Reason: "want at least 4 hex digits of an id that memory list prints"}
	}
	ms, err := List(ctx, repo, w)
	if err != nil {
		return Memory{}, err
	}
	var hits []Memory
	for _, m := range ms {
		if strings.HasPrefix(string(m.Commit), strings.ToLower(id)) {
			hits = append(hits, m)
		}
	}
	switch len(hits) {
	case 0:
		return Memory{}, fmt.Errorf("memory %s: %w (in this user's, project's and agent's scopes)", id, tract.ErrNotFound)
	case 1:
		return hits[0], nil
	}
	return Memory{}, &tract.ValidationError{Field: "memory id", Value: id, Reason: fmt.Sprintf("matches %d memories: give more of it", len(hits))}
}

// Edit replaces a memory's text by a tract edit of its commit.
func Edit(ctx context.Context, repo *tract.Repo, w Where, id, text string) (Memory, error) {
	text = strings.TrimSpace(text)
	if err := ValidateText(text); err != nil {
		return Memory{}, err
	}
	m, err := Get(ctx, repo, w, id)
	if err != nil {
		return Memory{}, err
	}
	c, err := repo.Edit(ctx, m.Tract, string(m.Commit), text, "memory: edit")
	if err != nil {
		return Memory{}, err
	}
	m.Text, m.Edited = text, c.Time.UTC()
	return m, nil
}

// Forget hides a memory from every list and delivery: a skip annotation
// on its commit (the commit stays; annotating it normal brings it back).
func Forget(ctx context.Context, repo *tract.Repo, w Where, id string) (Memory, error) {
	m, err := Get(ctx, repo, w, id)
	if err != nil {
		return Memory{}, err
	}
	if _, err := repo.Annotate(ctx, m.Tract, string(m.Commit), tract.Skip, forgetReason); err != nil {
		return Memory{}, err
	}
	return m, nil
}
