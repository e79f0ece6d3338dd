package tract

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/agentlineage/lineage/internal/canon"
)

// Damage is one integrity problem verify found.
type Damage struct {
	Kind   string `json:"kind"` // blob | commit | parent | content | edit-target | ref | checkpoint | tokens | database
	Object string `json:"object"`
	Detail string `json:"detail"`
}

func (d Damage) String() string { return fmt.Sprintf("%s %s: %s", d.Kind, d.Object, d.Detail) }

// VerifyReport is what verify checked and found.
type VerifyReport struct {
	Blobs   int      `json:"blobs"`
	Commits int      `json:"commits"`
	Refs    int      `json:"refs"`
	Damage  []Damage `json:"damage"`
}

// Verify recomputes every blob and commit hash and checks that every
// parent, content, edit target and ref points at something stored.
func (r *Repo) Verify(ctx context.Context) (VerifyReport, error) {
	rep := VerifyReport{Damage: []Damage{}}
	blobs, err := r.verifyBlobs(ctx, &rep)
	if err != nil {
		return rep, err
	}
	exists, err := r.verifyCommits(ctx, &rep, blobs)
	if err != nil {
		return rep, err
	}
	refs, err := r.store.Refs(ctx, "")
	if err != nil {
		return rep, err
	}
	rep.Refs = len(refs)
	for _, ref := range refs {
		v := ref.Value
		if strings.HasPrefix(v, branchPrefix) {
			continue
		}
		if !exists[Hash(v)] {
			rep.Damage = append(rep.Damage, Damage{"ref", ref.Tract + ":" + ref.Name, "points at missing commit " + v})
		}
	}
	if ic, ok := r.store.(IntegrityChecker); ok {
		found, err := ic.CheckIntegrity(ctx)
		if err != nil {
			return rep, err
		}
		rep.Damage = append(rep.Damage, found...)
	}
	err = r.store.ScanCompiledViews(ctx, func(cv CompiledView) error {
		obj := cv.Viewer + "/" + cv.Encoding
		switch {
		case checkView(&cv) != nil:
			rep.Damage = append(rep.Damage, Damage{"checkpoint", obj, "compile checkpoint does not match its hash ('lineage tract gc' removes it)"})
		case !exists[cv.Head]:
			rep.Damage = append(rep.Damage, Damage{"checkpoint", obj, "compile checkpoint of missing commit " + string(cv.Head)})
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	sort.Slice(rep.Damage, func(i, j int) bool {
		a, b := rep.Damage[i], rep.Damage[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Object != b.Object {
			return a.Object < b.Object
		}
		return a.Detail < b.Detail
	})
	return rep, nil
}

// verifyBlobs checks every blob's hash, canonical form and content into
// rep and returns the set of blobs there are.
func (r *Repo) verifyBlobs(ctx context.Context, rep *VerifyReport) (map[Hash]bool, error) {
	blobs := map[Hash]bool{}
	err := r.store.ScanBlobs(ctx, func(b Blob) error {
		rep.Blobs++
		blobs[b.Hash] = true
		sum := sha256.Sum256(b.Data)
		if got := Hash(hex.EncodeToString(sum[:])); got != b.Hash {
			rep.Damage = append(rep.Damage, Damage{"blob", string(b.Hash), "content hashes to " + string(got)})
			return nil
		}
		if c, err := canon.Canonicalize(b.Data); err != nil || !bytes.Equal(c, b.Data) {
			rep.Damage = append(rep.Damage, Damage{"blob", string(b.Hash), "not canonical JSON"})
		} else if _, err := DecodeContent(b.Data); err != nil {
			rep.Damage = append(rep.Damage, Damage{"blob", string(b.Hash), err.Error()})
		}
		return nil
	})
	return blobs, err
}

// verifyCommits checks every commit (checkCommit) into rep and returns
// the set of commits there are.
func (r *Repo) verifyCommits(ctx context.Context, rep *VerifyReport, blobs map[Hash]bool) (map[Hash]bool, error) {
	var commits []Commit
	exists := map[Hash]bool{}
	err := r.store.ScanCommits(ctx, func(c Commit) error {
		commits = append(commits, c)
		exists[c.Hash] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Commits = len(commits)
	for _, c := range commits {
		rep.Damage = append(rep.Damage, checkCommit(c, exists, blobs)...)
	}
	return exists, nil
}

func checkCommit(c Commit, exists, blobs map[Hash]bool) []Damage {
	var out []Damage
	obj := string(c.Hash)
	if got := c.ComputeHash(); got != c.Hash {
		out = append(out, Damage{"commit", obj, "fields hash to " + string(got)})
	}
	for i, p := range c.Parents {
		if !exists[p] {
			out = append(out, Damage{"parent", obj, fmt.Sprintf("parent %d %s is missing", i, p)})
		}
	}
	switch c.Operation {
	case OpMerge:
		if len(c.Parents) == 0 {
			out = append(out, Damage{"commit", obj, "merge without parents"})
		}
	case OpAppend, OpEdit, OpCompress:
		if !blobs[c.Content] {
			out = append(out, Damage{"content", obj, "blob " + string(c.Content) + " is missing"})
		}
	default:
		out = append(out, Damage{"commit", obj, "unknown operation " + string(c.Operation)})
	}
	if (c.Operation == OpEdit || c.Operation == OpCompress) && !exists[c.EditTarget] {
		out = append(out, Damage{"edit-target", obj, "edit target " + string(c.EditTarget) + " is missing"})
	}
	return out
}

// IntegrityChecker is a store that checks its own database: the engine's
// consistency check (SQLite's integrity_check, PostgreSQL's amcheck where
// installed) and the rows' own rules a scan of commits and blobs does not
// see (token counts are never negative). Verify runs it when the store
// offers it.
type IntegrityChecker interface {
	CheckIntegrity(ctx context.Context) ([]Damage, error)
}
