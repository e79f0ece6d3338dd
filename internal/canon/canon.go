package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Marshal encodes v as canonical JSON.
func Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	return Canonicalize(b)
}

// Canonicalize rewrites a JSON text in canonical form. It fails on invalid
// JSON and on duplicate object member names. A text already canonical (of
// the subset IsCanonical checks) is copied as it is, without a parse.
func Canonicalize(b []byte) ([]byte, error) {
	v := jsontext.Value(append([]byte(nil), b...))
	if IsCanonical(b) {
		return v, nil
	}
	if err := v.Canonicalize(); err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	return v, nil
}

// SHA256 returns the lowercase hex SHA-256 of v's canonical JSON.
func SHA256(v any) (string, error) {
	b, err := Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
