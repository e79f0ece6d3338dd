package sessions

import (
	"regexp"
	"strings"
	"sync"
)

// secretPattern is one kind of secret an import masks.
type secretPattern struct {
	kind string
	// hints are substrings every match holds: a text without any is not
	// run through the expression (most texts hold no secret at all).
	hints []string
	re    *lazyRegexp
}

// secretPatterns are the common shapes of credentials: provider API keys,
// access tokens, private key blocks. A match is replaced by
// "[masked:KIND]" before anything is stored, unless the caller keeps
// secrets. The patterns avoid quotes and backslashes at their ends, so a
// match inside a JSON line is replaced without breaking the line.
//
// Each is compiled on the first text holding one of its hints: a lineage
// command that masks nothing pays nothing for them, and a recording hook
// whose turn holds no hint compiles none.
func secretPatterns() []secretPattern {
	secretsOnce.Do(compileSecretPatterns)
	return secretList
}

var (
	secretsOnce sync.Once
	secretList  []secretPattern
)

func compileSecretPatterns() {
	secretList = []secretPattern{
		{"private-key", []string{"PRIVATE KEY-----"}, &lazyRegexp{expr: `-----BEGIN[A-Z ]{0,40} PRIVATE KEY-----[\s\S]{1,1000}?[\s\S]*?-----END[A-Z ]{0,40} PRIVATE KEY-----`}},
		{"anthropic-key", []string{"sk-ant-"}, &lazyRegexp{expr: `sk-ant-[A-Za-z0-9_-]{20,}`}},
		{"openai-key", []string{"sk-"}, &lazyRegexp{expr: `sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}`}},
		{"aws-access-key", []string{"AKIA", "ASIA"}, &lazyRegexp{expr: `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`}},
		{"github-token", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, &lazyRegexp{expr: `\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})`}},
		{"gitlab-token", []string{"glpat-"}, &lazyRegexp{expr: `\bglpat-[A-Za-z0-9_-]{20,}`}},
		{"slack-token", []string{"xox"}, &lazyRegexp{expr: `\bxox[abposr]-[A-Za-z0-9-]{10,}`}},
		{"google-api-key", []string{"AIza"}, &lazyRegexp{expr: `\bAIza[0-9A-Za-z_-]{35}`}},
		{"stripe-key", []string{"_live_"}, &lazyRegexp{expr: `\b(?:sk|rk)_live_[0-9A-Za-z]{20,}`}},
		{"bearer-token", []string{"earer "}, &lazyRegexp{expr: `\b[Bb]earer [A-Za-z0-9._~+/-]{24,}=*`}},
	}
}

// maskSecrets returns s with every secret replaced, and how many it
// replaced.
func maskSecrets(s string) (string, int) {
	n := 0
	for _, p := range secretPatterns() {
		if !hinted(s, p.hints) || !p.re.MatchString(s) {
			continue
		}
		s = p.re.get().ReplaceAllStringFunc(s, func(string) string {
			n++
			return "[masked:" + p.kind + "]"
		})
	}
	return s, n
}

// mask masks the record's texts in place and returns the count.
func (r *Record) mask() int {
	n := 0
	m := func(s *string) {
		var k int
		*s, k = maskSecrets(*s)
		n += k
	}
	m(&r.Text)
	for i := range r.Calls {
		m(&r.Calls[i].Arguments)
	}
	if r.Compaction != nil {
		m(&r.Compaction.Summary)
	}
	if len(r.Raw) > 0 {
		s := string(r.Raw)
		m(&s)
		r.Raw = []byte(s)
	}
	return n
}

func hinted(s string, hints []string) bool {
	for _, h := range hints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// lazyRegexp is a regular expression compiled on first use: a package
// variable of it builds nothing at start-up.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// MatchString compiles the expression once and matches s.
func (l *lazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }

// get compiles the expression once.
func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}
