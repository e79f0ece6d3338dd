package mcpserver

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlineage/lineage/instructions"
)

// InitialResourceURI is the resource holding the initial AGENTS.md block of
// the server's working directory.
const InitialResourceURI = "lineage://instructions/initial"

// initialURI names the initial block for cwd: the plain resource for the
// server's own directory, the template with a cwd query otherwise.
func initialURI(cwd, serverCwd string) string {
	if cwd == serverCwd {
		return InitialResourceURI
	}
	return InitialResourceURI + "?cwd=" + url.QueryEscape(cwd)
}

func (s *Server) addInstructionResources() {
	s.srv.AddResource(&mcp.Resource{
		URI:         InitialResourceURI,
		Name:        "instructions-initial",
		Title:       "Initial AGENTS.md block",
		Description: "The <agents_context scope=\"initial\"> block for the server's working directory. Subscribe to hear when a loaded AGENTS.md changes.",
		MIMEType:    "text/plain",
	}, coded(s.readInitial))
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: InitialResourceURI + "?cwd={+cwd}",
		Name:        "instructions-initial-at",
		Title:       "Initial AGENTS.md block for a directory",
		Description: "The initial block for another working directory (absolute, or relative to the server's).",
		MIMEType:    "text/plain",
	}, coded(s.readInitial))
}

func (s *Server) readInitial(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	u, err := url.Parse(req.Params.URI)
	if err != nil || u.Scheme+"://"+u.Host+u.Path != InitialResourceURI {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	sc := s.scopeOf(s.cachedRoots(req.Session))
	cwd, err := sc.path("cwd", u.Query().Get("cwd"))
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	_, in := instructions.Start(s.instructionOptions(cwd, sc))
	text := in.Text
	if text == "" {
		text = s.noInitialText(cwd, in)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: req.Params.URI, MIMEType: "text/plain", Text: text,
	}}}, nil
}

// noInitialText is the initial resource's text when no file loads: a
// resource always has text (a client shows an empty one as broken), and
// this one says why there is none.
func (s *Server) noInitialText(cwd string, in instructions.Initial) string {
	if !s.cfg.Enabled {
		return "No instruction files load: instruction loading is off (enabled: false in lineage's settings)."
	}
	return fmt.Sprintf("No instruction files load for %s: no %s from the project root %s down to it "+
		"(lineage instructions explain says why for each directory).", cwd, strings.Join(s.cfg.FileNames, " or "), in.Root)
}

// subscribe accepts subscriptions to the resources that can change.
func (s *Server) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if !strings.HasPrefix(req.Params.URI, InitialResourceURI) {
		return nil
	}
	s.mu.Lock()
	s.subscribed = appendUnique(s.subscribed, req.Params.URI)
	s.mu.Unlock()
	s.refreshInitialFiles()
	s.watch.subscribe()
	return nil
}

func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	if strings.HasPrefix(req.Params.URI, InitialResourceURI) {
		s.watch.unsubscribe()
	}
	return nil
}

func appendUnique(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// refreshInitialFiles records the files of the initial chain of every
// subscribed directory, so the watcher can stat them.
func (s *Server) refreshInitialFiles() {
	s.mu.Lock()
	uris := slices.Clone(s.subscribed)
	s.mu.Unlock()
	var files []instructions.StateFile
	for _, uri := range uris {
		sc := s.scopeOf(nil)
		u, err := url.Parse(uri)
		if err != nil {
			continue
		}
		cwd, err := sc.path("cwd", u.Query().Get("cwd"))
		if err != nil {
			continue
		}
		sess, _ := instructions.Start(s.instructionOptions(cwd, sc))
		files = append(files, sess.State().Files...)
	}
	s.mu.Lock()
	s.initialFiles = files
	s.mu.Unlock()
}

// loadedFiles are the AGENTS.md files the server has handed out: the
// initial chains behind subscribed resources and every file an instruction
// session knows.
func (s *Server) loadedFiles() []instructions.StateFile {
	s.mu.Lock()
	files := slices.Clone(s.initialFiles)
	var sessions []*instructions.Session
	if !s.opts.Stateless {
		s.pruneLocked()
		for _, sess := range s.sessions {
			sessions = append(sessions, sess)
		}
	}
	s.mu.Unlock()
	for _, sess := range sessions {
		files = append(files, sess.State().Files...)
	}
	if s.opts.Stateless {
		if st, ok, err := instructions.ReadState(s.statePath()); err == nil && ok {
			files = append(files, st.Files...)
		}
	}
	return files
}

// notifyInitialChanged tells subscribers that the initial block may read
// differently now.
func (s *Server) notifyInitialChanged(ctx context.Context) {
	s.refreshInitialFiles()
	s.mu.Lock()
	uris := slices.Clone(s.subscribed)
	s.mu.Unlock()
	for _, uri := range uris {
		if err := s.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			s.opts.Logger.Warn("resource updated", "uri", uri, "error", err)
		}
	}
}
