package sessions

import (
	"context"
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Harness names a program that writes session transcripts.
type Harness string

// The harnesses lineage reads.
const (
	Claude Harness = "claude"
	Codex  Harness = "codex"
	Gemini Harness = "gemini"
)

// Harnesses lists every known harness, sorted.
var Harnesses = []Harness{Claude, Codex, Gemini}

// Session is what a transcript says about its session as a whole. A reader
// fills what the file holds; later reads of a grown file may fill more
// (a title set late), and the mapper keeps the newest non-empty value of
// each field.
type Session struct {
	Harness Harness `json:"harness"`
	// ID is the harness's session id (Claude sessionId, Codex thread id,
	// Gemini sessionId; a subagent's own id for a subagent file).
	ID        string    `json:"id"`
	Title     string    `json:"title,omitempty"`
	Cwd       string    `json:"cwd,omitempty"`
	GitBranch string    `json:"gitBranch,omitempty"`
	Model     string    `json:"model,omitempty"`
	Version   string    `json:"version,omitempty"`
	Started   time.Time `json:"started,omitzero"`
	// Origin says where the session came from: a subagent's spawning tool
	// call, or the session and record a fork, resume or rewind continued.
	Origin *Link `json:"origin,omitempty"`
}

// LinkKind is how a session relates to the one it came from.
type LinkKind string

// The link kinds.
const (
	// LinkSubagent: the session is a subagent spawned at Link.Key, the
	// tool call's id in the parent session (Claude toolu_…, Codex call_…,
	// Gemini's toolCalls[].id). The mapper spawns the child tract empty at
	// that call's commit and never merges it back.
	LinkSubagent LinkKind = "subagent"
	// LinkFork: a copy or continuation in a new session; Key is the last
	// record shared with the origin ("" when the reader cannot tell). The
	// mapper spawns the child by reference at that record's commit.
	LinkFork LinkKind = "fork"
	// LinkResume: the same session continued in another file (a Codex
	// segment, a Gemini stray resume file); the records go on the origin's
	// tract after Key.
	LinkResume LinkKind = "resume"
	// LinkRewind: the file continues the origin's history from Key,
	// abandoning what followed it (a Codex rewind segment).
	LinkRewind LinkKind = "rewind"
)

// Link points from a session to the session it came from.
type Link struct {
	Kind    LinkKind `json:"kind"`
	Harness Harness  `json:"harness"`
	Session string   `json:"session"`
	// Key is a record key in the origin session (see each LinkKind).
	Key string `json:"key,omitempty"`
	// Purpose is a subagent's task or a fork's title, for the spawn.
	Purpose string `json:"purpose,omitempty"`
}

// Kind is what a record is.
type Kind string

// The record kinds, and what the mapper makes of each.
const (
	// KindMessage: user, assistant or system text → a message commit.
	KindMessage Kind = "message"
	// KindToolCall: an assistant turn calling tools (Calls; Text is any
	// text said with them) → a tool_call commit.
	KindToolCall Kind = "tool_call"
	// KindToolResult: the result of the call CallID (IsError on failure)
	// → a tool_result commit.
	KindToolResult Kind = "tool_result"
	// KindReasoning: thinking text → a reasoning commit (never compiled by
	// default); signatures and encrypted blobs only in meta.
	KindReasoning Kind = "reasoning"
	// KindContext: text the harness injected (Injected says from where)
	// → an instruction commit; lineage's own text is annotated skip so a
	// compile does not send it beside lineage's fresh context.
	KindContext Kind = "context"
	// KindCompaction: the harness summarised the history (Compaction)
	// → a compress summary by reference over the replaced records.
	KindCompaction Kind = "compaction"
	// KindImage: image bytes the session held (Image) → a metadata commit
	// whose text names the image; the bytes stay in the transcript.
	KindImage Kind = "image"
	// KindMetadata: an entry with no context of its own (bookkeeping,
	// settings, usage) → a metadata commit, Raw kept in meta.
	KindMetadata Kind = "metadata"
	// KindUnmapped: a classified line tract has no place for → a metadata
	// commit holding Raw verbatim, counted in the report.
	KindUnmapped Kind = "unmapped"
)

// Record is one thing a session holds, in the order the file holds it.
type Record struct {
	// Keys are the record's stable source keys, the first the primary one:
	// one key per source entry merged into the record (Claude writes one
	// entry per content block of an API response). Codex keys are its
	// ordinals in decimal.
	Keys []string `json:"keys"`
	// Parent is the primary key of the record this one follows; "" starts
	// a root. Two records with one parent make a branch (a rewind).
	Parent string `json:"parent,omitempty"`
	// Offset is the byte offset of the record's first line in the file.
	Offset int64     `json:"offset"`
	Time   time.Time `json:"time,omitzero"`
	Kind   Kind      `json:"kind"`
	// Type is the source line's own type (Claude "user", "attachment/file",
	// Codex "response_item/message"), kept in meta for the curious.
	Type string `json:"type,omitempty"`
	// Role is user, assistant or system for messages.
	Role string `json:"role,omitempty"`
	Text string `json:"text,omitempty"`
	// Calls are a tool_call record's calls.
	Calls []ToolCall `json:"calls,omitempty"`
	// CallID pairs a tool_result with its call; IsError marks a failure.
	CallID  string `json:"callId,omitempty"`
	IsError bool   `json:"isError,omitempty"`

	Injected   *Injected   `json:"injected,omitempty"`
	Compaction *Compaction `json:"compaction,omitempty"`
	Image      *Image      `json:"image,omitempty"`
	Turn       *Turn       `json:"turn,omitempty"`
	// Aside marks a record outside the conversation (Claude's last-prompt,
	// cost-state, queue-operation lines: no uuid, no parent): the mapper
	// keeps it as a metadata commit on the tract's side branch "meta", so
	// it never splits the conversation's line into branches.
	Aside bool `json:"aside,omitempty"`
	// Raw is the source line (or the part of it not mapped), verbatim.
	Raw jsontext.Value `json:"raw,omitzero"`
}

// Key returns the record's primary key.
func (r Record) Key() string {
	if len(r.Keys) == 0 {
		return ""
	}
	return r.Keys[0]
}

// ToolCall is one call of a tool.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the call's input as JSON text (Codex custom tools'
	// free text is wrapped as {"input": …}).
	Arguments string `json:"arguments"`
}

// Injected says where injected context came from.
type Injected struct {
	// Source is the harness's name for it: "attachment/instructions",
	// "hook_additional_context", "developer", "session_context", ….
	Source string `json:"source"`
	// Name, when set, is shared by every injection of one kind of
	// context the harness repeats whole (Claude's environment, date,
	// system prompt snapshot): the newest replaces the older ones in a
	// compile, as an instruction of the same name does.
	Name string `json:"name,omitempty"`
	// Lineage is true when the text is lineage's own (its hook answers:
	// agents_context, agents.resolve.paths, a hook's additional context
	// lineage wrote).
	Lineage bool `json:"lineage,omitempty"`
}

// Compaction is a harness's summary of earlier history.
type Compaction struct {
	Summary string `json:"summary"`
	// From and To are the keys of the oldest and newest record the
	// summary replaces ("" From: from the session's first record; "" To:
	// up to the record before this one).
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Kept are the keys of records the harness kept verbatim; the mapper
	// pins them so the summary does not hide them.
	Kept    []string `json:"kept,omitempty"`
	Trigger string   `json:"trigger,omitempty"`
}

// Image is an image the session held, by reference to its bytes.
type Image struct {
	MediaType string `json:"mediaType"`
	Size      int64  `json:"size"`
	SHA256    string `json:"sha256"`
	// Ref names where the bytes are (a file path, "inline" for base64 in
	// the transcript line at the record's offset).
	Ref string `json:"ref,omitempty"`
}

// Turn is what one model response reported.
type Turn struct {
	Model      string `json:"model,omitempty"`
	ResponseID string `json:"responseId,omitempty"`
	Input      int64  `json:"input,omitempty"`
	Output     int64  `json:"output,omitempty"`
	CacheRead  int64  `json:"cacheRead,omitempty"`
	CacheWrite int64  `json:"cacheWrite,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
}

// Cursor is where a read stopped. A reader starts at Offset (a line
// boundary) and stops at the last complete line, so a line being written
// is read next time. LastKey is the last record key read before Offset:
// when the line before Offset no longer ends with it (the file was
// replaced or shrank) the reader reports ErrCursorStale and the caller
// reads from zero (keys make that idempotent). Ordinal is Codex's next
// ordinal.
type Cursor struct {
	Offset int64 `json:"offset"`
	// Line is the number of lines before Offset (for error messages).
	Line    int    `json:"line,omitempty"`
	LastKey string `json:"lastKey,omitempty"`
	Ordinal int64  `json:"ordinal,omitempty"`
}

// Source is one transcript file to read.
type Source struct {
	Harness Harness `json:"harness"`
	// Path is the file; readers open it themselves through a root.
	Path string `json:"path"`
}

// Batch is what one read of a file gave.
type Batch struct {
	Session Session  `json:"session"`
	Records []Record `json:"records"`
	// Next is the cursor to read on from.
	Next Cursor `json:"next"`
	// Related are other files of the session a reader found beside it
	// (Claude subagent files): the importer reads them too.
	Related []Source `json:"related,omitempty"`
	// Skipped counts lines a reader classified as carrying nothing at all
	// (Claude's api-request blobs are re-sent messages): by type.
	Skipped map[string]int `json:"skipped,omitempty"`
}

// Reader reads one harness's transcripts.
type Reader interface {
	Harness() Harness
	// Read reads src from the cursor on. A zero cursor reads the whole
	// file. Records come in file order. A line the reader cannot parse or
	// has not classified fails the read with an error naming the file,
	// the line and the field (*UnclassifiedError for an unknown type).
	Read(ctx context.Context, src Source, from Cursor) (Batch, error)
}

// UnclassifiedError is a line of a record type the reader does not know:
// a newer harness version wrote something lineage has not mapped yet.
type UnclassifiedError struct {
	Path string
	Line int
	// Type is the line's type as the harness spells it.
	Type string
}

func (e *UnclassifiedError) Error() string {
	return fmt.Sprintf("%s: line %d: record type %q not classified (a newer harness version? lineage keeps nothing it has not mapped)", e.Path, e.Line, e.Type)
}

// LineError is a line that is not what its harness writes.
type LineError struct {
	Path   string
	Line   int
	Field  string
	Reason string
}

func (e *LineError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: line %d: %s", e.Path, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: line %d: %s: %s", e.Path, e.Line, e.Field, e.Reason)
}

// ErrCursorStale says a cursor does not fit the file any more (it shrank
// or was replaced): read it again from a zero cursor.
var ErrCursorStale error = cursorStale{}

// cursorStale is ErrCursorStale's type: a value of it costs no allocation
// at start-up (lineage keeps an init budget).
type cursorStale struct{}

func (cursorStale) Error() string {
	return "cursor does not fit the file: read it again from the start"
}
