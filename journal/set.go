package journal

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/agentlineage/lineage/agents"
	"github.com/agentlineage/lineage/internal/fsx"
	"github.com/agentlineage/lineage/triad"
)

// AgentEdit is a change to an agent document from the command line, after
// CLIA's `agents set-contribution-mix` and `agents set-focus-domains`, plus
// plain top-level fields (`agents set`).
type AgentEdit struct {
	Slug string
	// Fields set top-level keys: the value is read as JSON when it is JSON
	// (a number, true, an array…), else as a string.
	Fields []FieldValue
	// Primary and Secondary, when Primary is set, replace contributionMix's
	// lists (Merge: update them by type, last wins, in place).
	Primary, Secondary []MixItem
	// Domains, when set, replace focusDomains (Merge: update them by
	// identifier).
	Domains []FocusDomain
	Merge   bool
	// Write applies the change; otherwise it is only reported.
	Write bool
}

// FieldValue is one key=value of `agents set`.
type FieldValue struct{ Key, Value string }

// MixItem is one type[=weight] of a contribution mix.
type MixItem struct {
	Type   string
	Weight string
}

// FocusDomain is one Label=identifier[:weight] of focusDomains.
type FocusDomain struct{ Label, Identifier, Weight string }

// ParseMix reads CLIA's "type[=weight],…" list (weight 1 when omitted;
// weights must be positive numbers).
func ParseMix(csv string) ([]MixItem, error) {
	var out []MixItem
	for _, raw := range strings.Split(csv, ",") {
		p := strings.TrimSpace(raw)
		typ, w, hasW := strings.Cut(p, "=")
		typ, w = strings.TrimSpace(typ), strings.TrimSpace(w)
		if typ == "" {
			return nil, fmt.Errorf("empty type token in list: %s", csv)
		}
		if !hasW || w == "" {
			w = "1"
		}
		if f, err := strconv.ParseFloat(w, 64); err != nil || !validNumber(w) {
			return nil, fmt.Errorf("invalid weight for %s: %s", typ, w)
		} else if f <= 0 {
			return nil, fmt.Errorf("non-positive weights: %s=%s", typ, w)
		}
		out = append(out, MixItem{Type: typ, Weight: w})
	}
	return out, nil
}

// ParseFocusDomain reads CLIA's "Label=identifier[:weight]" (weight 1 when
// omitted; identifiers of A-Za-z0-9._-).
func ParseFocusDomain(spec string) (FocusDomain, error) {
	label, rest, ok := strings.Cut(spec, "=")
	if !ok {
		return FocusDomain{}, fmt.Errorf("missing '=' in domain spec: %s", spec)
	}
	id, w, hasW := strings.Cut(strings.TrimSpace(rest), ":")
	id = strings.TrimSpace(id)
	if !hasW {
		w = "1"
	}
	if _, err := strconv.ParseFloat(w, 64); err != nil || !validNumber(w) {
		return FocusDomain{}, fmt.Errorf("invalid weight in domain spec: %s", spec)
	}
	if id == "" || strings.TrimLeft(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" {
		return FocusDomain{}, fmt.Errorf("invalid identifier (allowed: A-Za-z0-9._-): %s", id)
	}
	return FocusDomain{Label: strings.TrimSpace(label), Identifier: id, Weight: w}, nil
}

// validNumber: s is a JSON number literal (so it is written as given).
func validNumber(s string) bool {
	v, err := triad.Decode("weight", []byte(s))
	return err == nil && v.Kind == triad.Number
}

// SetAgent applies e to the agent document of e.Slug at its write target
// (the directory `journal` writes to; its selected agent document). Only
// the edited members change: every other key, its order, number texts and
// the file's layout stay, and a second identical edit changes nothing. The
// file is replaced atomically under the context's lock.
func SetAgent(ctx context.Context, opts Options, e AgentEdit) (TidyResult, error) {
	if len(e.Fields) == 0 && e.Primary == nil && e.Secondary == nil && e.Domains == nil {
		return TidyResult{}, fmt.Errorf("nothing to set")
	}
	if e.Secondary != nil && e.Primary == nil && !e.Merge {
		return TidyResult{}, fmt.Errorf("--secondary needs --primary (or --merge)")
	}
	t, err := ResolveTarget(opts.Agents, e.Slug, opts.Scope, opts.AgentsDir)
	if err != nil {
		return TidyResult{}, err
	}
	sel, err := triad.SelectDir(t.Dir)
	name, ok := sel.Files[triad.Agent]
	if err != nil || !ok {
		return TidyResult{}, fmt.Errorf("no agent document for %s in %s", e.Slug, t.Dir)
	}
	f := filepath.Join(t.Dir, name)
	res := TidyResult{File: f, Kind: string(triad.Agent)}
	old, err := fsx.ReadRegular(f, agents.MaxDocumentBytes)
	if err != nil {
		return res, err
	}
	var data []byte
	res.Changed, res.Written, err = rewrite(ctx, tidyFile{path: f, base: t.Root}, e.Write, func(doc *triad.Value) (bool, error) {
		_, layout, _ := decodeAgency(f, old)
		before := triad.Encode(doc, layout)
		if err := e.apply(doc); err != nil {
			return false, err
		}
		data = triad.Encode(doc, layout)
		return string(data) != string(before), nil
	})
	if err == nil && res.Changed {
		res.Diff = string(diff.Diff(f, old, f, data))
	}
	return res, err
}

func (e AgentEdit) apply(doc *triad.Value) error {
	for _, fv := range e.Fields {
		if strings.TrimSpace(fv.Key) == "" {
			return fmt.Errorf("empty field name")
		}
		v, err := triad.Decode(fv.Key, []byte(fv.Value))
		if err != nil {
			v = triad.NewString(fv.Value)
		}
		if cur := doc.Get(fv.Key); cur == nil || string(triad.Canonical(cur)) != string(triad.Canonical(v)) {
			doc.Set(fv.Key, v)
		}
	}
	if e.Primary != nil || e.Secondary != nil {
		mix := doc.Get("contributionMix")
		if mix == nil || mix.Kind != triad.Object {
			mix = triad.NewObject()
			doc.Set("contributionMix", mix)
		}
		setMixList(mix, "primary", e.Primary, e.Merge)
		setMixList(mix, "secondary", e.Secondary, e.Merge)
	}
	if e.Domains != nil {
		setKeyed(doc, "focusDomains", "identifier", domainValues(e.Domains), e.Merge)
	}
	return nil
}

func setMixList(mix *triad.Value, key string, items []MixItem, merge bool) {
	if items == nil {
		if !merge {
			mix.Delete(key)
		}
		return
	}
	var vals []*triad.Value
	for _, it := range items {
		o := triad.NewObject()
		o.Set("type", triad.NewString(it.Type))
		o.Set("weight", &triad.Value{Kind: triad.Number, Text: it.Weight})
		vals = append(vals, o)
	}
	setKeyed(mix, key, "type", vals, merge)
}

func domainValues(ds []FocusDomain) []*triad.Value {
	var out []*triad.Value
	for _, d := range ds {
		o := triad.NewObject()
		o.Set("label", triad.NewString(d.Label))
		o.Set("identifier", triad.NewString(d.Identifier))
		o.Set("weight", &triad.Value{Kind: triad.Number, Text: d.Weight})
		out = append(out, o)
	}
	return out
}

// setKeyed sets obj[key] to vals, or with merge updates the existing array
// by each element's key field (the existing element's other keys stay; a
// new key is appended), so unchanged elements keep their bytes.
func setKeyed(obj *triad.Value, key, field string, vals []*triad.Value, merge bool) {
	cur := obj.Get(key)
	if !merge || cur == nil || cur.Kind != triad.Array {
		arr := triad.NewArray(vals...)
		if cur == nil || string(triad.Canonical(cur)) != string(triad.Canonical(arr)) {
			obj.Set(key, arr)
		}
		return
	}
	for _, v := range vals {
		id := v.Str(field)
		found := false
		for _, it := range cur.Items {
			if it.Kind == triad.Object && it.Str(field) == id {
				for _, m := range v.Members {
					if old := it.Get(m.Key); old == nil || string(triad.Canonical(old)) != string(triad.Canonical(m.Value)) {
						it.Set(m.Key, m.Value)
					}
				}
				found = true
				break
			}
		}
		if !found {
			cur.Items = append(cur.Items, v)
		}
	}
}
