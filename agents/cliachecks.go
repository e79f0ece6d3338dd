package agents

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// allContributorsTypes is CLIA's list of contribution types (the All
// Contributors emoji key, with synonyms), shipped with its MIT license
// from clia-org/clia-agent-cli's command resources.
//
//go:embed cliaspec/all-contributors-types.v1.json
var allContributorsTypes []byte

// TypesSpecPath is where, under a repository root, CLIA reads a
// workspace's own list of contribution types instead of its built-in one.
const TypesSpecPath = ".clia/specs/all-contributors-types.v1.json"

// TypesSpec knows the contribution types: each type's emoji, and every
// name and synonym (in any case) of a type.
type TypesSpec struct {
	emoji  map[string]string
	byName map[string]string
}

// ParseTypesSpec reads a contribution-types file in CLIA's shape,
// `{"types": {"<type>": {"emoji": "…", "synonyms": ["…"]}}}`.
func ParseTypesSpec(data []byte) (*TypesSpec, error) {
	var f struct {
		Types map[string]struct {
			Emoji    string   `json:"emoji"`
			Synonyms []string `json:"synonyms"`
		} `json:"types"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	if len(f.Types) == 0 {
		return nil, errors.New(`no "types"`)
	}
	s := &TypesSpec{emoji: map[string]string{}, byName: map[string]string{}}
	// In name order, so names differing only in case resolve alike on
	// every run: the first one takes the lower-case name.
	names := slices.Sorted(maps.Keys(f.Types))
	for _, k := range names {
		s.emoji[k] = f.Types[k].Emoji
		if _, taken := s.byName[strings.ToLower(k)]; !taken {
			s.byName[strings.ToLower(k)] = k
		}
	}
	// Synonyms after every type name: a synonym never hides a type.
	for _, k := range names {
		for _, syn := range f.Types[k].Synonyms {
			if _, taken := s.byName[strings.ToLower(syn)]; !taken {
				s.byName[strings.ToLower(syn)] = k
			}
		}
	}
	return s, nil
}

// Canonical returns the type a name or synonym stands for.
func (s *TypesSpec) Canonical(name string) (string, bool) {
	k, ok := s.byName[strings.ToLower(strings.TrimSpace(name))]
	return k, ok
}

// loadTypesSpec returns the contribution types of the repository at repo
// (its TypesSpecPath, else CLIA's built-in list) and the file it came from
// ("" for the built-in list).
func loadTypesSpec(repo string) (*TypesSpec, string, error) {
	if repo != "" {
		p := filepath.Join(repo, filepath.FromSlash(TypesSpecPath))
		data, err := fsx.ReadRegular(p, MaxDocumentBytes)
		switch {
		case err == nil:
			s, err := ParseTypesSpec(data)
			if err != nil {
				return nil, p, fmt.Errorf("%s: %w", p, err)
			}
			return s, p, nil
		case !errors.Is(err, fs.ErrNotExist):
			return nil, p, err
		}
	}
	s, err := ParseTypesSpec(allContributorsTypes)
	return s, "", err
}

// cliaFindings are the checks of CLIA's doctor lineage runs only when
// asked (Options.CheckCLIA): the local context lacking one of its three
// documents (an error: CLIA's doctor and its writers need all three),
// contribution types that are neither a type nor a synonym of the list
// (each at its file and line), a merged agent with no known contribution
// type, and one with no emoji tag and no type to derive one from.
func cliaFindings(local Context, agent *Profile, docs *docCache, rep *Report) {
	for _, k := range triad.Kinds {
		if local.Files.Get(k) == "" {
			rep.errorf("%s: no %s document (<slug>@<tag>.%s.triad.json); CLIA's doctor and writers need the agent, agenda and agency documents", local.Dir, k, k)
		}
	}
	if len(agent.Layers) == 0 {
		return
	}
	repo, _ := RepoRoot(local.Dir)
	spec, specFile, err := loadTypesSpec(repo)
	if err != nil {
		rep.errorf("contribution types: %v", err)
		return
	}
	known := 0
	for _, l := range agent.Layers {
		known += typeFindings(l, spec, specFile, docs, rep)
	}
	last := agent.Layers[len(agent.Layers)-1].File
	for _, l := range agent.Layers {
		for i, t := range elementsOf(l.Doc.Get("emojiTags")) {
			if t.Kind != triad.String || strings.TrimSpace(t.Text) == "" {
				rep.warnf("%s: emojiTags[%d] is %s, not an emoji", docs.at(l.File, fmt.Sprintf("/emojiTags/%d", i)), i, kindOrBlank(t))
			}
		}
	}
	tags := 0
	for _, t := range elementsOf(agent.Merged.Get("emojiTags")) {
		if t.Kind == triad.String && strings.TrimSpace(t.Text) != "" {
			tags++
		}
	}
	if known == 0 {
		rep.warnf("%s: no contribution type in contributionMix.primary or .secondary that CLIA knows (CLIA's doctor: contribution-types missing or unrecognized)", last)
		if tags == 0 {
			rep.warnf("%s: no emojiTags, and no contribution type to derive one from (CLIA's doctor: emoji-tags missing)", last)
		}
	}
}

// typeFindings warns about each contribution type of layer l that spec
// does not know, at its line, and returns how many it knows.
func typeFindings(l triad.Layer, spec *TypesSpec, specFile string, docs *docCache, rep *Report) int {
	list := "CLIA's All Contributors list"
	if specFile != "" {
		list = specFile
	}
	known := 0
	for _, group := range []string{"primary", "secondary"} {
		for i, it := range elementsOf(l.Doc.Get("contributionMix").Get(group)) {
			ptr := fmt.Sprintf("/contributionMix/%s/%d", group, i)
			t := it
			if it.Kind == triad.Object {
				t, ptr = it.Get("type"), ptr+"/type"
			}
			if t == nil || t.Kind != triad.String || strings.TrimSpace(t.Text) == "" {
				if t == nil {
					ptr = strings.TrimSuffix(ptr, "/type")
				}
				rep.warnf("%s: contributionMix.%s[%d] has no type", docs.at(l.File, ptr), group, i)
				continue
			}
			if _, ok := spec.Canonical(t.Text); ok {
				known++
				continue
			}
			rep.warnf("%s: contribution type %q (contributionMix.%s[%d]) is neither a type nor a synonym of %s", docs.at(l.File, ptr), t.Text, group, i, list)
		}
	}
	return known
}

func elementsOf(v *triad.Value) []*triad.Value {
	if v == nil || v.Kind != triad.Array {
		return nil
	}
	return v.Items
}

func kindOrBlank(v *triad.Value) string {
	if v.Kind == triad.String {
		return "a blank string"
	}
	return kindName(v.Kind)
}
