//go:build !unix

package fstest

import "errors"

func makeFIFO(string) error { return errors.New("no named pipes on this platform") }
