package sessions

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/agentlineage/lineage/tract"
)

// Info is one imported session as `sessions list` shows it.
type Info struct {
	Tract       string    `json:"tract"`
	Harness     Harness   `json:"harness"`
	Session     string    `json:"session"`
	Title       string    `json:"title,omitempty"`
	FirstPrompt string    `json:"firstPrompt,omitempty"`
	Cwd         string    `json:"cwd,omitempty"`
	GitBranch   string    `json:"gitBranch,omitempty"`
	Model       string    `json:"model,omitempty"`
	Version     string    `json:"version,omitempty"`
	Started     time.Time `json:"started,omitzero"`
	Tokens      int64     `json:"tokens"`
	Records     int       `json:"records"`
	Origin      *Link     `json:"origin,omitempty"`
	// id is the tract's store id (set by List), so Find maps its hits to
	// sessions without looking each tract up again.
	id string
}

// Label is the session's title, else its first prompt.
func (i Info) Label() string { return firstNonEmpty(i.Title, i.FirstPrompt) }

// ListOptions select sessions.
type ListOptions struct {
	// Harness keeps one harness's sessions ("" all).
	Harness Harness
	// Cwd keeps the sessions whose working directory is Cwd or below it
	// ("" all).
	Cwd string
}

// List returns the imported sessions, newest first (then by tract name).
// It reads the tracts and every tract's metadata in two store reads,
// whatever the number of sessions.
func List(ctx context.Context, repo *tract.Repo, o ListOptions) ([]Info, error) {
	ts, err := repo.Tracts(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(ts))
	for _, t := range ts {
		if t.Name != IndexTract {
			ids = append(ids, t.ID)
		}
	}
	meta, err := tract.ReadTractsMeta(ctx, repo.Store(), ids)
	if err != nil {
		return nil, err
	}
	return infos(ts, meta, o), nil
}

// infos makes the sessions of the live tracts ts from their metadata,
// those o selects, newest first (then by tract name).
func infos(ts []tract.Tract, meta map[string][]tract.TractMeta, o ListOptions) []Info {
	out := []Info{}
	for _, t := range ts {
		if t.Name == IndexTract || !t.Deleted.IsZero() {
			continue
		}
		info, ok := infoOf(t.Name, meta[t.ID])
		if !ok || (o.Harness != "" && info.Harness != o.Harness) || !under(info.Cwd, o.Cwd) {
			continue
		}
		info.id = t.ID
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b Info) int {
		if c := b.Started.Compare(a.Started); c != 0 {
			return c
		}
		return strings.Compare(a.Tract, b.Tract)
	})
	return out
}

// Get reads one tract's session header; ok is false when the tract is not
// a session (or the importer's index). It reads that tract's metadata only.
func Get(ctx context.Context, repo *tract.Repo, name string) (info Info, ok bool, err error) {
	if name == IndexTract {
		return Info{}, false, nil
	}
	t, err := repo.Tract(ctx, name)
	if err != nil {
		return Info{}, false, err
	}
	meta, err := tract.ReadTractMeta(ctx, repo.Store(), t.ID)
	if err != nil {
		return Info{}, false, err
	}
	info, ok = infoOf(name, meta)
	return info, ok, nil
}

func under(dir, root string) bool {
	if root == "" {
		return true
	}
	root = strings.TrimSuffix(root, "/")
	return dir == root || strings.HasPrefix(dir, root+"/")
}

// infoOf reads a session's tract metadata; ok is false for a tract that
// is not a session.
func infoOf(name string, meta []tract.TractMeta) (Info, bool) {
	m := map[string]string{}
	for _, e := range meta {
		m[e.Key] = e.Value
	}
	if m[MetaHarness] == "" || m[MetaSession] == "" {
		return Info{}, false
	}
	i := Info{Tract: name, Harness: Harness(m[MetaHarness]), Session: m[MetaSession], Title: m[MetaTitle],
		FirstPrompt: m[MetaFirstPrompt], Cwd: m[MetaCwd], GitBranch: m[MetaGitBranch], Model: m[MetaModel], Version: m[MetaVersion]}
	i.Started, _ = time.Parse(time.RFC3339Nano, m[MetaStarted])
	i.Tokens, _ = strconv.ParseInt(m[MetaTokens], 10, 64)
	i.Records, _ = strconv.Atoi(m[MetaRecords])
	if o := m[MetaOrigin]; o != "" {
		var l Link
		if jsonUnmarshal([]byte(o), &l) == nil {
			i.Origin = &l
		}
	}
	return i, true
}

// Lookup finds one imported session by tract name, session id or a unique
// prefix of either.
func Lookup(ctx context.Context, repo *tract.Repo, ref string) (Info, error) {
	all, err := List(ctx, repo, ListOptions{})
	if err != nil {
		return Info{}, err
	}
	var hits []Info
	for _, i := range all {
		if i.Tract == ref || i.Session == ref {
			return i, nil
		}
		if strings.HasPrefix(i.Session, ref) || strings.HasPrefix(i.Tract, ref) {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 0:
		return Info{}, fmt.Errorf("session %q: %w", ref, tract.ErrNotFound)
	case 1:
		return hits[0], nil
	}
	return Info{}, &tract.ValidationError{Field: "session", Value: ref, Reason: fmt.Sprintf("matches %d sessions: give more of its id", len(hits))}
}

// Hit is one record `sessions find` found.
type Hit struct {
	Session Info       `json:"session"`
	Commit  tract.Hash `json:"commit"`
	// Key is the record's source key; Time the harness's time of it.
	Key   string     `json:"key"`
	Time  time.Time  `json:"time,omitzero"`
	Type  tract.Type `json:"type"`
	Role  string     `json:"role,omitempty"`
	Text  string     `json:"text"`
	Score int        `json:"score"`
}

// FindOptions are the filters of Find.
type FindOptions struct {
	Text string
	ListOptions
	// Limit keeps the best Limit hits (0: all).
	Limit int
}

// Find searches the text of every imported session through the store's
// full-text index and ranks the hits: most occurrences of the query's
// words first, then newest, then by commit.
func Find(ctx context.Context, repo *tract.Repo, o FindOptions) ([]Hit, error) {
	words := tract.Words(o.Text)
	if len(words) == 0 {
		return nil, &tract.ValidationError{Field: "query", Value: o.Text, Reason: "no word to search for"}
	}
	found, err := repo.Store().Search(ctx, tract.SearchQuery{Words: words, HasMeta: true})
	if err != nil {
		return nil, err
	}
	sessions, err := foundSessions(ctx, repo.Store(), found, o.ListOptions)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]Info, len(sessions))
	for _, s := range sessions {
		byID[s.id] = s
	}
	hits := []Hit{}
	for _, h := range found {
		s, ok := byID[h.Commit.Tract]
		if !ok {
			continue
		}
		c, err := tract.DecodeContent(h.Blob.Data)
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", h.Commit.Hash.Short(), err)
		}
		cm := metaOf(h.Commit.Meta)
		hit := Hit{Session: s, Commit: h.Commit.Hash, Key: firstKey(cm.Keys), Type: c.Type, Role: c.Role, Text: c.RenderedText()}
		hit.Time, _ = time.Parse(time.RFC3339Nano, cm.Time)
		hit.Score = tract.CountWords(hit.Text, words)
		hits = append(hits, hit)
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), b.Time.Compare(a.Time), strings.Compare(string(a.Commit), string(b.Commit)))
	})
	if o.Limit > 0 && len(hits) > o.Limit {
		hits = hits[:o.Limit]
	}
	return hits, nil
}

// foundSessions reads the sessions of the tracts the hits are in, those o
// selects: their tracts and metadata in two store reads, whatever the
// number of hits or of sessions in the store.
func foundSessions(ctx context.Context, rd tract.Finder, found []tract.HistoryCommit, o ListOptions) ([]Info, error) {
	var ids []string
	seen := map[string]bool{}
	for _, h := range found {
		if !seen[h.Commit.Tract] {
			seen[h.Commit.Tract] = true
			ids = append(ids, h.Commit.Tract)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	ts, err := rd.TractsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	meta, err := tract.ReadTractsMeta(ctx, rd, ids)
	if err != nil {
		return nil, err
	}
	return infos(ts, meta, o), nil
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
