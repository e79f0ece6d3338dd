package instructions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/agentlineage/lineage/internal/fsx"
)

// StateVersion is the version of the session state file.
const StateVersion = 1

// State is a session saved to disk, so separate processes share one
// session. Lists are sorted.
//
// A path that is not valid UTF-8 keeps its bytes: the JSON string shows it
// with U+FFFD replacements and a base64 field beside it (rootBytes,
// cwdBytes, pathBytes, coveredDirsBytes for such covered dirs) holds the
// bytes, which win on reading.
type State struct {
	Version    int    `json:"version"`
	Root       string `json:"root"`
	RootBytes  []byte `json:"rootBytes,omitzero"`
	RootSource string `json:"rootSource"`
	Cwd        string `json:"cwd"`
	CwdBytes   []byte `json:"cwdBytes,omitzero"`
	// Markers are names from the configuration, not paths found on disk.
	Markers     []string    `json:"markers"`
	Files       []StateFile `json:"files"`
	CoveredDirs []string    `json:"coveredDirs"`
	// CoveredDirsBytes are the covered dirs that are not valid UTF-8;
	// CoveredDirs lists them with replacements.
	CoveredDirsBytes [][]byte `json:"coveredDirsBytes,omitzero"`
	// Rules are the rules with "paths:" the session delivers on touch,
	// found when it started (rule folders are listed then only).
	Rules []StateRule `json:"rules,omitzero"`
}

// StateRule is a rule with "paths:" globs, relative to Base.
type StateRule struct {
	Path      string   `json:"path"`
	PathBytes []byte   `json:"pathBytes,omitzero"`
	Base      string   `json:"base"`
	BaseBytes []byte   `json:"baseBytes,omitzero"`
	Paths     []string `json:"paths"`
}

// StateFile is a known file and the version the session knows.
type StateFile struct {
	Path      string `json:"path"`
	PathBytes []byte `json:"pathBytes,omitzero"`
	MtimeMs   int64  `json:"mtimeMs"`
	MtimeNs   int64  `json:"mtimeNs"`
	SizeBytes int64  `json:"sizeBytes"`
	// Imports are the paths this file imports, in document order: a
	// resolve looks at them whenever it passes this file.
	Imports []string `json:"imports,omitzero"`
	// ImportsBytes, set only when an import's path is not valid UTF-8,
	// holds every import's bytes, in the order of Imports.
	ImportsBytes [][]byte `json:"importsBytes,omitzero"`
}

// State returns the session as a State.
func (s *Session) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := State{Version: StateVersion, Root: s.root.Dir, RootSource: s.root.Source, Cwd: s.cwd,
		Markers: clone(s.markers), Files: make([]StateFile, 0, len(s.known)), CoveredDirs: s.coveredDirs()}
	if st.Markers == nil {
		st.Markers = []string{}
	}
	for p, k := range s.known {
		sf := StateFile{Path: p, PathBytes: invalidBytes(p), MtimeMs: k.v.mtimeMs(), MtimeNs: k.v.mtimeNs, SizeBytes: k.v.size,
			Imports: clone(s.imports[p])}
		for _, ip := range sf.Imports {
			if invalidBytes(ip) != nil {
				for _, ip := range sf.Imports {
					sf.ImportsBytes = append(sf.ImportsBytes, []byte(ip))
				}
				break
			}
		}
		st.Files = append(st.Files, sf)
	}
	for _, r := range s.rules {
		st.Rules = append(st.Rules, StateRule{Path: r.path, PathBytes: invalidBytes(r.path), Base: r.base, BaseBytes: invalidBytes(r.base), Paths: clone(r.paths)})
	}
	st.RootBytes, st.CwdBytes = invalidBytes(st.Root), invalidBytes(st.Cwd)
	for _, d := range st.CoveredDirs {
		if b := invalidBytes(d); b != nil {
			st.CoveredDirsBytes = append(st.CoveredDirsBytes, b)
		}
	}
	slices.SortFunc(st.Files, func(a, b StateFile) int { return strings.Compare(a.Path, b.Path) })
	return st
}

// Restore rebuilds a session from a saved state. The root, cwd and markers
// are the saved ones (markers are not searched again); the configuration,
// the filesystem and the base for relative targets (opts.Cwd) are current.
func Restore(st State, opts Options) *Session {
	s := newSession(opts, Root{Dir: filepath.Clean(st.Root), Source: st.RootSource}, filepath.Clean(st.Cwd), st.Markers)
	for _, f := range st.Files {
		s.known[f.Path] = known{v: version{mtimeNs: f.MtimeNs, size: f.SizeBytes}}
		s.idsPending = true
		if len(f.Imports) > 0 {
			s.imports[f.Path] = clone(f.Imports)
		}
	}
	for _, sr := range st.Rules {
		r := rule{path: sr.Path, base: sr.Base, paths: clone(sr.Paths)}
		for _, p := range sr.Paths {
			if g, err := compileGlob(p); err == nil {
				r.globs = append(r.globs, g)
			}
		}
		s.rules = append(s.rules, r)
	}
	for _, d := range st.CoveredDirs {
		s.covered[d] = struct{}{}
	}
	return s
}

// MarshalState encodes st as the state file's bytes. Strings that are not
// valid UTF-8 are written with U+FFFD replacements: their bytes are in the
// ...Bytes fields.
func MarshalState(st State) ([]byte, error) {
	b, err := json.Marshal(st, jsontext.WithIndent("  "), json.Deterministic(true), jsontext.AllowInvalidUTF8(true))
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ParseState decodes a state file strictly.
func ParseState(data []byte) (State, error) {
	var st State
	if err := json.Unmarshal(data, &st, json.RejectUnknownMembers(true)); err != nil {
		return State{}, describeJSONError(data, err)
	}
	if st.Version != StateVersion {
		return State{}, fmt.Errorf("version: unsupported state version %d (want %d)", st.Version, StateVersion)
	}
	if st.Root == "" || st.Cwd == "" {
		return State{}, errors.New("root and cwd must be set")
	}
	st.restoreBytes()
	return st, nil
}

// restoreBytes puts the saved bytes of paths that are not valid UTF-8
// back in place of their replaced strings.
func (st *State) restoreBytes() {
	if st.RootBytes != nil {
		st.Root = string(st.RootBytes)
	}
	if st.CwdBytes != nil {
		st.Cwd = string(st.CwdBytes)
	}
	for i, f := range st.Files {
		if f.PathBytes != nil {
			st.Files[i].Path = string(f.PathBytes)
		}
		if len(f.ImportsBytes) == len(f.Imports) {
			for j, b := range f.ImportsBytes {
				st.Files[i].Imports[j] = string(b)
			}
		}
	}
	for i, r := range st.Rules {
		if r.PathBytes != nil {
			st.Rules[i].Path = string(r.PathBytes)
		}
		if r.BaseBytes != nil {
			st.Rules[i].Base = string(r.BaseBytes)
		}
	}
	if len(st.CoveredDirsBytes) == 0 {
		return
	}
	replaced := map[string]bool{}
	for _, b := range st.CoveredDirsBytes {
		// The encoder replaces each invalid byte with U+FFFD, as a
		// conversion to runes does.
		replaced[string([]rune(string(b)))] = true
	}
	dirs := st.CoveredDirs[:0]
	for _, d := range st.CoveredDirs {
		if !replaced[d] {
			dirs = append(dirs, d)
		}
	}
	for _, b := range st.CoveredDirsBytes {
		dirs = append(dirs, string(b))
	}
	slices.Sort(dirs)
	st.CoveredDirs = slices.Compact(dirs)
}

// MaxStateBytes is the largest state file read.
const MaxStateBytes = 64 << 20

// ReadState reads the state file at path; ok is false when it does not
// exist. Anything but a regular file is refused without blocking.
func ReadState(path string) (st State, ok bool, err error) {
	st, _, ok, err = readState(nil, path)
	return st, ok, err
}

// readState is [ReadState] that also returns the file's bytes; with dir
// set, path's base name is read through it.
func readState(dir *os.Root, path string) (st State, data []byte, ok bool, err error) {
	if dir != nil {
		data, _, err = fsx.ReadRegularIn(dir, filepath.Base(path), MaxStateBytes)
	} else {
		data, err = fsx.ReadRegular(path, MaxStateBytes)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, nil, false, nil
	}
	if err != nil {
		return State{}, nil, false, fmt.Errorf("read state: %w", err)
	}
	st, err = ParseState(data)
	if err != nil {
		return State{}, nil, false, &stateContentError{path: path, err: err}
	}
	return st, data, true, nil
}

// stateContentError is a state file whose bytes do not parse.
type stateContentError struct {
	path string
	err  error
}

func (e *stateContentError) Error() string        { return "state " + e.path + ": " + e.err.Error() }
func (e *stateContentError) Unwrap() error        { return e.err }
func (e *stateContentError) Is(target error) bool { return target == errStateContent }

// UpdateState runs fn on the state in path under an exclusive lock on
// "<path>.lock" and atomically writes what fn returns, so concurrent
// processes on one state file lose nothing and never see a torn file. fn
// gets nil when the file does not exist; an error from fn leaves the file
// as it was. A state equal to the one saved is not written again: a
// resolve that finds nothing new costs a read, not a write and its fsyncs.
func UpdateState(ctx context.Context, path string, fn func(*State) (State, error)) error {
	_, err := UpdateStateFile(ctx, path, StateFileOptions{}, fn)
	return err
}

// StateFileOptions are how [UpdateStateFile] writes a state file.
type StateFileOptions struct {
	// Mode is the file's permission bits; 0 means 0644. Private session
	// state (a harness hook's) uses 0600.
	Mode fs.FileMode
	// Broken, when set, is called for a state file that cannot be used (not
	// a state file, too large, not a regular file) after it was moved aside
	// to "<path>.broken" (replacing an older one): the update then goes on
	// as if there were no state. Without it such a file is an error.
	Broken func(aside string, err error)
	// Dir, when set, is the directory path lies directly in, opened as a
	// root: the lock, the read, the temporary file, the rename and a broken
	// file's move all go through it, so a directory swapped for a symbolic
	// link after it was opened cannot lead any of them elsewhere.
	Dir *os.Root
}

// BrokenSuffix is appended to a state file moved aside (see
// [StateFileOptions.Broken]).
const BrokenSuffix = ".broken"

// isBroken reports whether err from readState means the file itself is
// unusable, as opposed to the filesystem failing to read it.
func isBroken(err error) bool {
	return errors.Is(err, errStateContent) || errors.Is(err, fsx.ErrTooLarge) || errors.Is(err, fsx.ErrNotRegular) || fsx.IsSymlinkLoop(err)
}

// errStateContent marks a state file whose bytes are not a state.
var errStateContent = errors.New("not a session state")

// UpdateStateFile is [UpdateState] with options; written reports whether
// the file was written (false when fn's state equals the saved one).
func UpdateStateFile(ctx context.Context, path string, opts StateFileOptions, fn func(*State) (State, error)) (written bool, err error) {
	name := filepath.Base(path)
	var lock *fsx.Lock
	if opts.Dir != nil {
		lock, err = fsx.LockFileIn(ctx, opts.Dir, name+".lock")
	} else {
		lock, err = fsx.LockFile(ctx, path+".lock")
	}
	if err != nil {
		return false, err
	}
	defer lock.Unlock()
	st, saved, ok, err := readState(opts.Dir, path)
	if err != nil && opts.Broken != nil && isBroken(err) {
		aside := path + BrokenSuffix
		rename := os.Rename
		if opts.Dir != nil {
			rename = func(string, string) error { return opts.Dir.Rename(name, name+BrokenSuffix) }
		}
		if rerr := rename(path, aside); rerr != nil {
			return false, fmt.Errorf("%w; moving it aside: %w", err, rerr)
		}
		opts.Broken(aside, err)
		st, saved, ok, err = State{}, nil, false, nil
	}
	if err != nil {
		return false, err
	}
	var cur *State
	if ok {
		cur = &st
	}
	next, err := fn(cur)
	if err != nil {
		return false, err
	}
	data, err := MarshalState(next)
	if err != nil {
		return false, err
	}
	if ok && bytes.Equal(data, saved) {
		return false, nil
	}
	mode := opts.Mode
	if mode == 0 {
		mode = 0o644
	}
	// Every writer holds the lock, so the temporary file has a fixed name:
	// the directory is never listed (a state file beside 50,000 others
	// costs what one alone does).
	if opts.Dir != nil {
		err = fsx.WriteFileLockedIn(opts.Dir, name, data, mode)
	} else {
		err = fsx.WriteFileLocked(path, data, mode)
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// WriteState replaces the state file at path with st under the same lock
// as [UpdateState], whatever the file held before (even if it is broken).
func WriteState(ctx context.Context, path string, st State) error {
	lock, err := fsx.LockFile(ctx, path+".lock")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	data, err := MarshalState(st)
	if err != nil {
		return err
	}
	return fsx.WriteFileLocked(path, data, 0o644)
}

// Continue restores the session saved in st, or, when st is nil (nothing
// saved yet), starts one with the initial load and returns that load too.
func Continue(st *State, opts Options) (*Session, *Initial) {
	if st != nil {
		return Restore(*st, opts), nil
	}
	sess, in := Start(opts)
	return sess, &in
}

// UpdateSession runs fn on the session saved in the state file at path —
// started with the initial load when there is none, which fn then gets —
// and saves it, all under the file's lock ([UpdateState]), so concurrent
// processes sharing one session report each file once. An error from fn
// leaves the file as it was.
func UpdateSession(ctx context.Context, path string, opts Options, fn func(sess *Session, started *Initial) error) error {
	return UpdateState(ctx, path, func(st *State) (State, error) {
		sess, in := Continue(st, opts)
		if err := fn(sess, in); err != nil {
			return State{}, err
		}
		return sess.State(), nil
	})
}

// ErrNoSession is returned by [ResumeSession] when no session is saved.
var ErrNoSession = errors.New("no session state")

// StartSession starts a session with the initial load and saves it at path
// in place of whatever was there ([WriteState]).
func StartSession(ctx context.Context, path string, opts Options) (*Session, Initial, error) {
	sess, in := Start(opts)
	return sess, in, WriteState(ctx, path, sess.State())
}

// ResumeSession compares the session saved at path with the present
// ([Resume]) and saves the resumed session in its place, under the file's
// lock. With nothing saved it returns an error wrapping [ErrNoSession].
func ResumeSession(ctx context.Context, path string, opts Options) (Resumed, error) {
	return ResumeSessionFile(ctx, path, StateFileOptions{}, opts)
}

// ResumeSessionFile is [ResumeSession] with the state file's options (a
// server face passes the directory it opened through its allowed root as
// fileOpts.Dir).
func ResumeSessionFile(ctx context.Context, path string, fileOpts StateFileOptions, opts Options) (Resumed, error) {
	var r Resumed
	_, err := UpdateStateFile(ctx, path, fileOpts, func(st *State) (State, error) {
		if st == nil {
			return State{}, fmt.Errorf("%w in %s", ErrNoSession, path)
		}
		r = Resume(*st, opts)
		return r.Session.State(), nil
	})
	return r, err
}
