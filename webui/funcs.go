package webui

import (
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentlineage/lineage/tract"
)

var funcs = template.FuncMap{
	"short":    func(h tract.Hash) string { return h.Short() },
	"shown":    func(s string) string { return shown(s, MaxShownBytes) },
	"line":     func(s string) string { return line(s, 200) },
	"tractURL": tractURL,
	"compileURL": func(name string, p compilePage, from int) string {
		v := url.Values{}
		if p.Budget > 0 {
			v.Set("budget", strconv.Itoa(p.Budget))
		}
		v.Set("format", string(p.Format))
		if p.At != "" {
			v.Set("at", p.At)
		}
		if p.PruneParam != "" {
			v.Set("prune", p.PruneParam)
		}
		v.Set("from", strconv.Itoa(from))
		return tractURL(name, "compile") + "?" + v.Encode()
	},
	"commitURL": commitURL,
	"turnURL":   turnURL,
	"graphURL": func(name string, skip int) string {
		if skip <= 0 {
			return tractURL(name, "graph")
		}
		return tractURL(name, "graph") + "?skip=" + strconv.Itoa(skip)
	},
	"instructionsURL": func(dir, slug string) string {
		v := url.Values{}
		if dir != "" && dir != "." {
			v.Set("dir", dir)
		}
		if slug != "" {
			v.Set("slug", slug)
		}
		if len(v) == 0 {
			return "/instructions"
		}
		return "/instructions?" + v.Encode()
	},
	"time":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") },
	"join":  strings.Join,
	"deref": func(p *int) int { return *p },
	"add":   func(a, b int) int { return a + b },
	"refs": func(rs []string) string {
		return strings.Join(rs, ", ")
	},
	"tagNames": func(ts []tract.Tag) string {
		names := make([]string, len(ts))
		for i, t := range ts {
			names[i] = t.Name
		}
		return strings.Join(names, ", ")
	},
	"branchNames": func(bs []tract.Branch) string {
		names := make([]string, len(bs))
		for i, b := range bs {
			names[i] = b.Name
		}
		return strings.Join(names, ", ")
	},
}
