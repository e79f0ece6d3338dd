package journal

import (
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// ParseLink reads CLIA's link argument: 'href' or 'href|kind|title'.
func ParseLink(s string) (Link, error) {
	parts := strings.Split(s, "|")
	l := Link{Href: strings.TrimSpace(parts[0])}
	if l.Href == "" {
		return Link{}, fmt.Errorf("link %q: the href (before the first |) is empty", s)
	}
	if len(parts) > 3 {
		return Link{}, fmt.Errorf("link %q: want href or href|kind|title, got %d parts", s, len(parts))
	}
	if len(parts) > 1 {
		l.Kind = strings.TrimSpace(parts[1])
	}
	if len(parts) > 2 {
		l.Title = strings.TrimSpace(parts[2])
	}
	return l, nil
}

// ParseContribution reads CLIA's contribution argument
// 'by=<slug>,type=<type>,evidence=<text>[,weight=<n>]'. A part without '='
// continues the value before it, so evidence may contain commas.
func ParseContribution(s string) (Contribution, error) {
	var c Contribution
	var last *string
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		key := strings.TrimSpace(k)
		var dst *string
		switch {
		case !ok:
		case key == "by":
			dst = &c.By
		case key == "type":
			dst = &c.Type
		case key == "evidence":
			dst = &c.Evidence
		case key == "weight":
			dst = &c.Weight
		}
		if dst == nil {
			if last == nil {
				return Contribution{}, fmt.Errorf("contribution %q: %q is not one of by=, type=, evidence=, weight=", s, strings.TrimSpace(part))
			}
			*last += "," + part
			continue
		}
		*dst, last = strings.TrimSpace(v), dst
	}
	c.Evidence = strings.TrimSpace(c.Evidence)
	return c, c.validate()
}

func (c Contribution) validate() error {
	for _, f := range []struct{ name, v string }{{"by", c.By}, {"type", c.Type}, {"evidence", c.Evidence}} {
		if strings.TrimSpace(f.v) == "" {
			return fmt.Errorf("contribution: %s= is missing or empty", f.name)
		}
	}
	if c.Weight != "" {
		tok, err := jsontext.NewDecoder(strings.NewReader(c.Weight)).ReadToken()
		if err != nil || tok.Kind() != '0' || tok.String() != c.Weight {
			return fmt.Errorf("contribution: weight=%q is not a number", c.Weight)
		}
	}
	return nil
}
