package sessions

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
)

// origin links a rollout to where it came from: a sub-agent to the
// parent's spawn_agent call, a fork or a rewind segment to the last record
// of the file it continues (history_base: Codex copies nothing).
func (p *codexParser) origin(ctx context.Context) error {
	m := p.meta
	var parent string
	if m.Source.Kind() == '{' {
		var src struct {
			Subagent *struct {
				ThreadSpawn *struct {
					ParentThreadID string `json:"parent_thread_id"`
				} `json:"thread_spawn"`
			} `json:"subagent"`
		}
		if json.Unmarshal(m.Source, &src) == nil && src.Subagent != nil && src.Subagent.ThreadSpawn != nil {
			parent = src.Subagent.ThreadSpawn.ParentThreadID
		}
	}
	if parent == "" && m.ThreadSource == "subagent" {
		parent = m.ParentThreadID
	}
	root := codexSessionsRoot(p.path)
	var link *Link
	switch {
	case parent != "":
		call, purpose := codexSpawnCall(ctx, root, parent, p.b.Session.ID)
		link = &Link{Kind: LinkSubagent, Harness: Codex, Session: parent, Key: call, Purpose: firstNonEmpty(purpose, m.AgentNickname)}
	case m.ForkedFromID != "":
		link = &Link{Kind: LinkFork, Harness: Codex, Session: m.ForkedFromID, Key: codexBaseKey(ctx, root, m.HistoryBase)}
	case m.HistoryBase != nil:
		link = &Link{Kind: LinkRewind, Harness: Codex, Session: p.b.Session.ID, Key: codexBaseKey(ctx, root, m.HistoryBase)}
	default:
		return nil
	}
	p.b.Session.Origin = link
	if link.Kind != LinkSubagent && link.Key != "" {
		// The file's first record follows the last one it continues.
		for i := range p.b.Records {
			if r := &p.b.Records[i]; !r.Aside {
				if r.Parent == "" {
					r.Parent = link.Key
				}
				break
			}
		}
	}
	return nil
}

// codexSessionsRoot is the sessions folder a rollout lies in (…/sessions/
// YYYY/MM/DD/file), or the file's own folder.
func codexSessionsRoot(path string) string {
	dir := filepath.Dir(path)
	for d, i := dir, 0; i < 4; d, i = filepath.Dir(d), i+1 {
		if filepath.Base(d) == "sessions" {
			return d
		}
	}
	return dir
}

// codexLocate finds the rollout of a thread id or a segment id under root;
// segment is true for a segment file.
func codexLocate(root, id string) (path string, segment bool) {
	if id == "" {
		return "", false
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", false
	}
	defer r.Close()
	_ = fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if path != "" {
			return fs.SkipAll
		}
		if err != nil {
			return nil
		}
		name := d.Name()
		switch {
		case d.IsDir() || !strings.HasPrefix(name, "rollout-"):
		case strings.HasSuffix(name, "-"+id+".jsonl"):
			path = filepath.Join(root, filepath.FromSlash(p))
		case strings.HasSuffix(name, "_"+id+".jsonl"):
			path, segment = filepath.Join(root, filepath.FromSlash(p)), true
		}
		return nil
	})
	return path, segment
}

// codexBaseKey is the key of the last conversation record of the file a
// history_base names, before its end: what a fork or rewind continues.
// "" when the file is not found.
func codexBaseKey(ctx context.Context, root string, hb *codexBase) string {
	if hb == nil {
		return ""
	}
	path, seg := codexLocate(root, hb.ThreadID)
	if path == "" {
		return ""
	}
	t, err := readTail(path, Cursor{})
	if err != nil {
		return ""
	}
	p := &codexParser{path: path}
	if seg {
		p.segment = hb.ThreadID
	}
	for _, l := range t.Lines {
		if ctx.Err() != nil || hb.EndByteOffet > 0 && l.Offset >= hb.EndByteOffet {
			break
		}
		var e struct {
			Ordinal int64 `json:"ordinal"`
		}
		if json.Unmarshal(l.Data, &e) != nil || e.Ordinal >= hb.EndOrdinal {
			break
		}
		if p.line(l) != nil {
			break
		}
	}
	p.flush()
	return p.prev
}

// codexSpawnCall finds, in the parent thread's rollout, the spawn_agent
// call that started the sub-agent id, and the task it was given.
func codexSpawnCall(ctx context.Context, root, parent, id string) (call, purpose string) {
	path, _ := codexLocate(root, parent)
	if path == "" {
		return "", ""
	}
	t, err := readTail(path, Cursor{})
	if err != nil {
		return "", ""
	}
	for _, l := range t.Lines {
		if ctx.Err() != nil {
			return "", ""
		}
		if !bytes.Contains(l.Data, []byte(id)) || !bytes.Contains(l.Data, []byte(`"CollabAgentToolCall"`)) {
			continue
		}
		var e struct {
			Payload struct {
				Item struct {
					Type      string   `json:"type"`
					ID        string   `json:"id"`
					Tool      string   `json:"tool"`
					Receivers []string `json:"receiver_thread_ids"`
					Prompt    string   `json:"prompt"`
				} `json:"item"`
			} `json:"payload"`
		}
		if json.Unmarshal(l.Data, &e) != nil {
			continue
		}
		if it := e.Payload.Item; it.Tool == "spawn_agent" && slices.Contains(it.Receivers, id) {
			return it.ID, it.Prompt
		}
	}
	return "", ""
}

// imageDigest is the size and SHA-256 of an image's bytes, given as
// base64 or as they are.
func imageDigest(data string, b64 bool) (int64, string) {
	raw := []byte(data)
	if b64 {
		if d, err := base64.StdEncoding.DecodeString(data); err == nil {
			raw = d
		}
	}
	sum := sha256.Sum256(raw)
	return int64(len(raw)), hex.EncodeToString(sum[:])
}
