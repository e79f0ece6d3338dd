package webui

import (
	"context"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/agentlineage/lineage/sessions"
	"github.com/agentlineage/lineage/tract"
)

// sessionsPage is one page of the imported harness sessions, newest first.
type sessionsPage struct {
	Rows    []sessions.Info
	Harness string
	Skip    int
	// Total is how many sessions match (every page counts them all).
	Total int
	Next  template.URL // the next (older) page; "" when none
	Prev  template.URL // the previous (newer) page; "" when none
}

// sessionsList lists the store's harness sessions (tracts with a session
// header), a window of them at a time, newest first; ?harness= keeps one
// harness's.
func (s *Server) sessionsList(ctx context.Context, r *http.Request) (string, pageData, error) {
	skip, err := intParam(r, "skip", 0, 0)
	if err != nil {
		return "", pageData{}, err
	}
	n, err := intParam(r, "n", s.o.Window, MaxWindow)
	if err != nil {
		return "", pageData{}, err
	}
	if n == 0 {
		n = s.o.Window
	}
	h := r.URL.Query().Get("harness")
	if h != "" && !slices.Contains(sessions.Harnesses, sessions.Harness(h)) {
		return "", pageData{}, badRequest{"harness=" + h + ": want claude, codex or gemini"}
	}
	all, err := sessions.List(ctx, s.o.Repo, sessions.ListOptions{Harness: sessions.Harness(h)})
	if err != nil {
		return "", pageData{}, err
	}
	p := sessionsPage{Harness: h, Skip: skip, Total: len(all), Rows: all[min(skip, len(all)):min(skip+n, len(all))]}
	if skip+n < len(all) {
		p.Next = sessionsURL(h, skip+n, n, s.o.Window)
	}
	if skip > 0 {
		p.Prev = sessionsURL(h, max(0, skip-n), n, s.o.Window)
	}
	return "sessions", pageData{Title: "Sessions", Page: p}, nil
}

// sessionsURL is the URL of a page of the session list.
func sessionsURL(harness string, skip, n, window int) template.URL {
	v := url.Values{}
	if harness != "" {
		v.Set("harness", harness)
	}
	if skip > 0 {
		v.Set("skip", strconv.Itoa(skip))
	}
	if n != window {
		v.Set("n", strconv.Itoa(n))
	}
	if len(v) == 0 {
		return "/sessions"
	}
	// Safe as a URL: a fixed path and a query from url.Values.
	return template.URL("/sessions?" + v.Encode())
}

// sessionHeader is what a session's graph page shows above its commits:
// the harness's header, where the session came from, and its lines (the
// harness's current one is main; each rewind left a branch).
type sessionHeader struct {
	sessions.Info
	// OriginTract is the tract of the session a fork or resume came from.
	OriginTract string
	// Rewinds are the branches a rewind or an edited turn left.
	Rewinds []tract.Branch
}

// sessionOf reads the session header of a tract; nil when it is not one.
func (s *Server) sessionOf(ctx context.Context, name string) (*sessionHeader, error) {
	info, ok, err := sessions.Get(ctx, s.o.Repo, name)
	if err != nil || !ok {
		return nil, err
	}
	h := &sessionHeader{Info: info}
	if o := info.Origin; o != nil && o.Session != "" {
		h.OriginTract = sessions.TractName(o.Harness, o.Session)
	}
	branches, err := s.o.Repo.Branches(ctx, name)
	if err != nil {
		return nil, err
	}
	for _, b := range branches {
		if b.Name != tract.DefaultBranch && b.Name != sessions.MetaBranch {
			h.Rewinds = append(h.Rewinds, b)
		}
	}
	return h, nil
}
