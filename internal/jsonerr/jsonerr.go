package jsonerr

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Describe rewrites an error from json.Unmarshal without Go type names.
// Errors of any other kind, and nil, are returned unchanged.
func Describe(err error) error {
	var serr *json.SemanticError
	if errors.As(err, &serr) {
		var syn *jsontext.SyntacticError
		if serr.Err != nil && errors.As(serr.Err, &syn) {
			return describeSyntax(syn)
		}
		where := "the document"
		if p := string(serr.JSONPointer); p != "" {
			where = p
		}
		want := "a different value"
		if serr.GoType != nil {
			want = kindOf(serr.GoType)
		}
		if got := kindName(serr.JSONKind); got != "" {
			return fmt.Errorf("at %s: want %s, got %s", where, want, got)
		}
		return fmt.Errorf("at %s: want %s", where, want)
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		return describeSyntax(syn)
	}
	return err
}

// describeSyntax keeps the decoder's own wording (it names no Go types)
// without its package prefix.
func describeSyntax(syn *jsontext.SyntacticError) error {
	return errors.New("invalid JSON: " + strings.TrimPrefix(syn.Error(), "jsontext: "))
}

// kindOf names what a Go type accepts in JSON.
func kindOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a different value"
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return ""
}
