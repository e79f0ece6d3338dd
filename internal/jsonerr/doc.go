// Package jsonerr words JSON decoding errors for people: where in the
// document the problem is (a JSON pointer, or a byte offset for broken
// syntax) and what was expected, in JSON's terms (a string, a number, an
// array) — never the Go type the decoder was filling ("Go []tract.ToolCall"),
// which means nothing to someone writing JSON by hand.
package jsonerr
