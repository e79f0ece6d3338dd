package webui

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/instructions"
	"github.com/agentlineage/lineage/internal/httpguard"
	"github.com/agentlineage/lineage/tract"
)

// DefaultWindow is how many commits one graph page shows.
const DefaultWindow = 50

// MaxWindow bounds the rows a graph page may ask for.
const MaxWindow = 500

// maxListed bounds find results and other lists on one page.
const maxListed = 200

// DefaultMaxConcurrent is how many pages a server renders at once.
const DefaultMaxConcurrent = 4

// Options configure a [Server].
type Options struct {
	// Repo is the tract store's repo, opened read-only by the caller.
	Repo *tract.Repo
	// Store names the store in page headers (a redacted URL or path).
	Store string
	// Instructions are the options of the instructions pages: Cwd is the
	// directory they start from; a page's dir must lie inside it.
	Instructions instructions.Options
	// Agents are the options of the agent profile pages (Path is set per
	// request to the page's directory).
	Agents agents.Options
	// Window is the graph's rows per page (default [DefaultWindow]).
	Window int
	// RequestTimeout bounds the work of one page (default 30 s).
	RequestTimeout time.Duration
	// MaxConcurrent bounds the pages rendered at once (default
	// [DefaultMaxConcurrent]); a request waits for a turn while its
	// RequestTimeout lasts, then gets 503. Memory is that many pages'.
	MaxConcurrent int
	// Sessions says the store is a harness sessions store (lineage serve
	// --sessions): the first page lists the sessions, newest first, a
	// window at a time, instead of every tract (one per session and
	// subagent) with its status.
	Sessions bool
	// Hosts are the names a request's Host header may carry besides
	// loopback ones and the address it arrived on: the host of the
	// listen address ([httpguard.AddrHosts]). Any other name gets 421.
	Hosts []string
}

// Server renders the pages.
type Server struct {
	o Options
	// pages are the parsed templates, by page name, each parsed on the
	// first request for it (with the frame): a server started for one
	// page parses that page alone.
	pagesMu sync.Mutex
	pages   map[string]*template.Template
	// turns holds one token per page being rendered.
	turns chan struct{}
	// whole holds the token of the one page that builds a compile whole
	// (wholeTurn).
	whole chan struct{}
	// rendering, when set (by tests), is called with each page's turn held.
	rendering func()
	// wholeWaiting, when set (by tests), is called as a page asks for the
	// turn to build a compile whole.
	wholeWaiting func()
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// New checks the options; the templates are parsed as pages ask for
// them.
func New(o Options) (*Server, error) {
	if o.Repo == nil {
		return nil, errors.New("webui: no repo")
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	return &Server{o: o, pages: map[string]*template.Template{}, turns: make(chan struct{}, o.MaxConcurrent), whole: make(chan struct{}, 1)}, nil
}

// template is page name's template (templates/NAME.html and the frame),
// parsed on its first use.
func (s *Server) template(name string) (*template.Template, error) {
	s.pagesMu.Lock()
	defer s.pagesMu.Unlock()
	if t, ok := s.pages[name]; ok {
		return t, nil
	}
	t, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/frame.html", "templates/"+name+".html")
	if err != nil {
		return nil, err
	}
	s.pages[name] = t
	return t, nil
}

// static serves the embedded stylesheet with its type set, so that the
// file server does not load the system's MIME tables (/etc/mime.types and
// the shared MIME globs: about a third of a server's start) to find it.
func static() http.Handler {
	sub, _ := fs.Sub(staticFS, "static")
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".css") {
			w.Header().Set("Content-Type", "text/css; charset=utf-8")
		}
		files.ServeHTTP(w, r)
	})
}

// Handler serves every page behind [httpguard.Policy] (421 for a Host
// header naming a host the server is not bound to, 403 for a non-loopback
// Origin, 401 without the bearer token when token is set).
// Only GET and HEAD are answered.
func (s *Server) Handler(token string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", static()))
	if s.o.Sessions {
		mux.HandleFunc("GET /{$}", s.page(s.sessionsList))
	} else {
		mux.HandleFunc("GET /{$}", s.page(s.tracts))
	}
	mux.HandleFunc("GET /tracts", s.page(s.tracts))
	mux.HandleFunc("GET /tract/{name}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, tractURL(r.PathValue("name"), "graph"), http.StatusFound)
	})
	mux.HandleFunc("GET /tract/{name}/graph", s.page(s.graph))
	mux.HandleFunc("GET /tract/{name}/commit/{hash}", s.page(s.commit))
	mux.HandleFunc("GET /tract/{name}/compile", s.page(s.compile))
	mux.HandleFunc("GET /tract/{name}/diff", s.page(s.diff))
	mux.HandleFunc("GET /tract/{name}/find", s.page(s.find))
	mux.HandleFunc("GET /tract/{name}/turns", s.page(s.sessionTurns))
	mux.HandleFunc("GET /tract/{name}/handoff", s.page(s.handoffPreview))
	mux.HandleFunc("GET /sessions", s.page(s.sessionsList))
	mux.HandleFunc("GET /instructions", s.page(s.instructions))
	return httpguard.Policy{Token: token, Hosts: s.o.Hosts}.Handler(headers(mux))
}

// Serve serves the pages on ln until ctx is cancelled, then shuts down
// ([httpguard.Serve]: pages in flight get 3 s, then every connection still
// open is closed). Besides the bounds every face has, a request must
// arrive within 30 s and its page be written within 2 minutes.
func (s *Server) Serve(ctx context.Context, ln net.Listener, token string) error {
	return httpguard.Serve(ctx, ln, s.Handler(token), httpguard.ServeOptions{
		ReadTimeout: 30 * time.Second, WriteTimeout: 2 * time.Minute, Grace: 3 * time.Second})
}

// headers sets what every answer carries: no script, style or image from
// anywhere but this server, no framing, no content sniffing.
func headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// pageData is what every template gets: the page's own data and the frame.
type pageData struct {
	Title string
	Store string
	Tract string // the tract the page is about, for the navigation
	Page  any
}

// page adapts a handler that returns its template name and data: errors
// become a page with the status they mean, and the page is rendered into a
// buffer first so a template error never sends half a page.
func (s *Server) page(fn func(ctx context.Context, r *http.Request) (string, pageData, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.o.RequestTimeout)
		defer cancel()
		select {
		case s.turns <- struct{}{}:
			defer func() { <-s.turns }()
			if s.rendering != nil {
				s.rendering()
			}
		case <-ctx.Done():
			w.Header().Set("Retry-After", retryAfter)
			http.Error(w, "busy: too many pages being rendered; try again", http.StatusServiceUnavailable)
			return
		}
		name, data, err := fn(ctx, r)
		data.Store = s.o.Store
		status := http.StatusOK
		if err != nil {
			status = statusOf(err)
			name, data.Title, data.Page = "error", http.StatusText(status), err.Error()
		}
		var buf bytes.Buffer
		t, err := s.template(name)
		if err == nil {
			err = t.ExecuteTemplate(&buf, name+".html", data)
		}
		if err != nil {
			http.Error(w, "internal error: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(status)
		w.Write(buf.Bytes())
	}
}

// retryAfter is the Retry-After of a 503 (a page that waited its whole
// RequestTimeout for a turn): seconds.
const retryAfter = "5"

// wholeTurn waits for the turn to build a compile whole (what a page of a
// tract without a stored checkpoint does: the whole history in memory):
// one page at a time, so that requests arriving together cost one such
// compile, not one each; the first stores the checkpoint, and those that
// waited read their window from it (tract.WindowOptions.Whole).
func (s *Server) wholeTurn(ctx context.Context) (func(), error) {
	if s.wholeWaiting != nil {
		s.wholeWaiting()
	}
	select {
	case s.whole <- struct{}{}:
		return func() { <-s.whole }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// badRequest is a query parameter the page cannot use.
type badRequest struct{ msg string }

func (e badRequest) Error() string { return e.msg }

func statusOf(err error) int {
	var ve *tract.ValidationError
	var br badRequest
	var be *tract.BudgetError
	switch {
	case errors.As(err, &br), errors.As(err, &ve):
		return http.StatusBadRequest
	case errors.As(err, &be):
		// A valid request whose budget the pinned messages exceed: the
		// page says by how much.
		return http.StatusUnprocessableEntity
	case errors.Is(err, tract.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// intParam reads a non-negative whole number query parameter.
func intParam(r *http.Request, name string, def, max int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || (max > 0 && n > max) {
		if max > 0 {
			return 0, badRequest{name + "=" + v + ": want a whole number from 0 to " + strconv.Itoa(max)}
		}
		return 0, badRequest{name + "=" + v + ": want a whole number, 0 or more"}
	}
	return n, nil
}

// tractURL is the stable URL of a tract page.
func tractURL(name, page string) string {
	return "/tract/" + url.PathEscape(name) + "/" + page
}

// commitURL is the stable URL of a commit page.
func commitURL(tractName string, h tract.Hash) string {
	return tractURL(tractName, "commit/"+url.PathEscape(string(h)))
}
