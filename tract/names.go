package tract

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxContentBytes is the largest content one commit holds, in bytes of its
// canonical JSON: a few hundred thousand tokens, more than any model's
// window. Without it a 50 MB commit was stored, and every compile paid for it.
const MaxContentBytes = 4 << 20

// MaxMessageBytes is the longest commit message.
const MaxMessageBytes = 64 << 10

// MaxNameBytes is the longest tract or branch name, in bytes: a name may
// become a file name (git's limit for a ref component is the same).
const MaxNameBytes = 255

// ValidateBranchName applies git's branch name rules (git check-ref-format):
// no space or control character, none of ~^:?*[\, no "..", "@{" or "//", not
// starting with "." or "-" or "/", not ending in ".", "/" or ".lock", no
// component starting with ".", and not "HEAD" or "@"; and ours: valid
// UTF-8, only printable characters, at most MaxNameBytes bytes.
func ValidateBranchName(name string) error {
	if reason := badRefName(name); reason != "" {
		return &ValidationError{Field: "branch name", Value: name, Reason: reason}
	}
	return nil
}

// ValidateTractName applies the branch rules to tract names, and forbids "/"
// so TRACT:REF and paths stay unambiguous.
func ValidateTractName(name string) error {
	reason := badRefName(name)
	if reason == "" && strings.Contains(name, "/") {
		reason = `contains "/"`
	}
	if reason != "" {
		return &ValidationError{Field: "tract name", Value: name, Reason: reason}
	}
	return nil
}

func badRefName(name string) string {
	switch {
	case name == "":
		return "empty"
	case name == HeadRef || name == "@":
		return "reserved"
	case len(name) > MaxNameBytes:
		return fmt.Sprintf("%d bytes, the limit is %d", len(name), MaxNameBytes)
	case !utf8.ValidString(name):
		return "not valid UTF-8"
	case strings.HasPrefix(name, "."):
		return `starts with "."`
	case strings.HasPrefix(name, "-"):
		return `starts with "-"`
	case strings.HasPrefix(name, "/"):
		return `starts with "/"`
	case strings.HasSuffix(name, ".lock"):
		return `ends with ".lock"`
	case strings.HasSuffix(name, "."), strings.HasSuffix(name, "/"):
		return "ends with " + `"` + name[len(name)-1:] + `"`
	case strings.Contains(name, ".."):
		return `contains ".."`
	case strings.Contains(name, "@{"):
		return `contains "@{"`
	case strings.Contains(name, "//"):
		return `contains "//"`
	case strings.Contains(name, "/."):
		return `has a component starting with "."`
	}
	for _, r := range name {
		switch {
		case r == ' ':
			return "contains a space"
		case r < 0x20 || r == 0x7f || !strconv.IsPrint(r):
			return "contains a control character"
		case strings.ContainsRune(`~^:?*[\`, r):
			return "contains " + `"` + string(r) + `"`
		}
	}
	return ""
}
