package jsonerr

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

func TestDescribe(t *testing.T) {
	type call struct {
		ID   string `json:"id"`
		Args []int  `json:"args"`
	}
	cases := []struct {
		in   string
		into any
		want string
	}{
		{`{"id":1}`, &call{}, "at /id: want a string, got a number"},
		{`{}`, &[]call{}, "at the document: want an array, got an object"},
		{`[{"args":"x"}]`, &[]call{}, "at /0/args: want an array, got a string"},
		{`[{"id":"a"},]`, &[]call{}, "invalid JSON: invalid character ',' at start of value"},
		{`{"args":[true]}`, &call{}, "at /args/0: want a whole number, got a boolean"},
	}
	for _, c := range cases {
		err := Describe(json.Unmarshal([]byte(c.in), c.into))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want prefix %q", c.in, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "jsonerr.") {
			t.Errorf("%s: %v names a Go type", c.in, err)
		}
	}
	if Describe(nil) != nil {
		t.Error("Describe(nil) != nil")
	}
}
