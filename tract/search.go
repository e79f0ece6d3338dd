package tract

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Full-text search works on words: maximal runs of Unicode letters and
// digits, lowercased. Both stores index exactly the words Words gives (SQLite
// through an FTS5 table with the ascii tokenizer, PostgreSQL through a
// tsvector built from the word list, no parser in between), and a query's
// words are cut the same way, so a word query finds the same commits on
// either store.
const (
	// maxWordBytes: longer runs (base64, hashes) are not indexed.
	maxWordBytes = 64
	// maxIndexBytes caps the distinct words indexed for one blob (PostgreSQL
	// refuses a tsvector over 1 MB).
	maxIndexBytes = 256 << 10
)

// CountWords counts how many of the text's distinct [Words] are among
// words: the score a search ranks a hit by.
func CountWords(text string, words []string) int {
	want := map[string]bool{}
	for _, w := range words {
		want[w] = true
	}
	n := 0
	for _, w := range Words(text) {
		if want[w] {
			n++
		}
	}
	return n
}

// Words cuts text into its distinct search words, sorted.
//
// It is strings.FieldsFunc(strings.ToLower(text), notWordRune) without
// duplicates, in one pass: each rune is lowered as ToLower lowers it (an
// invalid byte reads as U+FFFD, which separates words), a word is kept once,
// as it stands in text when lowering left it alone, and only the distinct
// words are sorted (a long text repeats most of its words: sorting them all
// cost more than cutting them). A short text (most messages) is cut into a
// list that is sorted and compacted: a set costs more than it saves there.
func Words(text string) []string {
	c := wordCutter{text: text, start: -1}
	if len(text) >= shortText {
		c.seen = newWordSet()
	}
	for i := 0; i < len(text); {
		if k := asciiClass[text[i]]; k != asciiOther {
			// An ASCII byte, read here without a call: most of a text.
			switch {
			case k == asciiSep:
				if c.start >= 0 {
					c.emit(i)
				}
			case c.start < 0:
				c.start, c.changed, c.ascii = i, false, true
				fallthrough
			default:
				if k == asciiUpper && !c.changed {
					c.changed = true
					c.lower = append(c.lower[:0], text[c.start:i]...)
				}
				if c.changed {
					c.lower = append(c.lower, text[i]|0x20*byte(k&asciiUpper>>1))
				}
			}
			i++
			continue
		}
		r, l, size, word := wordRune(text, i)
		if !word {
			if c.start >= 0 {
				c.emit(i)
			}
			i += size
			continue
		}
		if c.start < 0 {
			c.start, c.changed, c.ascii = i, false, true
		}
		if size > 1 {
			c.ascii = false
		}
		if l != r && !c.changed {
			c.changed = true
			c.lower = append(c.lower[:0], text[c.start:i]...)
		}
		if c.changed {
			c.lower = utf8.AppendRune(c.lower, l)
		}
		i += size
	}
	if c.start >= 0 {
		c.emit(len(text))
	}
	slices.Sort(c.out)
	if c.seen == nil {
		return slices.Compact(c.out)
	}
	return c.out
}

// wordCutter is the state of one Words: the words kept (out, and seen for
// a long text) and the word being read, from start (-1 between words),
// lowered into lower once lowering changed it (changed), all ASCII so far
// (ascii).
type wordCutter struct {
	text           string
	seen           *wordSet
	out            []string
	lower          []byte
	start          int
	changed, ascii bool
}

// emit keeps the word that ends at end, unless it is too long, kept
// already or not valid UTF-8.
func (c *wordCutter) emit(end int) {
	w := c.text[c.start:end]
	c.start = -1
	if c.changed {
		if len(c.lower) > maxWordBytes {
			return
		}
	} else if len(w) > maxWordBytes {
		return
	}
	var slot uint32
	if c.seen != nil {
		var found bool
		if c.changed {
			slot, found = findWord(c.seen, c.out, c.lower)
		} else {
			slot, found = findWord(c.seen, c.out, w)
		}
		if found {
			return
		}
	}
	if c.changed {
		w = string(c.lower)
	}
	if !c.ascii && !utf8.ValidString(w) {
		return
	}
	if c.seen != nil {
		c.seen.add(slot, len(c.out))
	}
	c.out = append(c.out, w)
}

// The classes of the bytes of a text for Words: an ASCII separator, an
// ASCII letter or digit (upper case letters lowered by setting 0x20), or a
// byte that starts or continues a multi-byte rune.
const (
	asciiSep   = 0
	asciiWord  = 1
	asciiUpper = 3 // asciiWord with the upper-case bit 2
	asciiOther = 4
)

var asciiClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			t[c] = asciiWord
		case 'A' <= c && c <= 'Z':
			t[c] = asciiUpper
		case c >= utf8.RuneSelf:
			t[c] = asciiOther
		}
	}
	return t
}()

// wordRune reads the rune at text[i]: as it stands (c), lowered (l), its
// size and whether it belongs to a word.
func wordRune(text string, i int) (c, l rune, size int, word bool) {
	c, size = rune(text[i]), 1
	l = c
	switch {
	case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
		word = true
	case 'A' <= c && c <= 'Z':
		l, word = c+'a'-'A', true
	case c >= utf8.RuneSelf:
		c, size = utf8.DecodeRuneInString(text[i:])
		l = unicode.ToLower(c)
		word = !notWordRune(l)
	}
	return c, l, size, word
}

// wordSet is the set of the words Words has kept, for a long text: open
// addressing over their FNV-1a hashes (one probe finds a word or the slot
// it goes in, where a map took a lookup and an insert), the words
// themselves in the list Words returns.
type wordSet struct {
	slots  []int32  // 1 + the word's index in the list; 0 is free
	hashes []uint32 // each listed word's hash, to grow without hashing again
	mask   uint32
	next   uint32 // the hash of the word the last find did not find
}

func newWordSet() *wordSet {
	const n = 256
	return &wordSet{slots: make([]int32, n), mask: n - 1}
}

// findWord returns w's slot and whether words holds w there, else the free
// slot where it goes (the hash kept for add). w is a string or the bytes
// of one (compared without a copy).
func findWord[W string | []byte](s *wordSet, words []string, w W) (uint32, bool) {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint32(w[i])) * 16777619
	}
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		switch k := s.slots[i]; {
		case k == 0:
			s.next = h
			return i, false
		case s.hashes[k-1] == h && words[k-1] == string(w):
			return i, true
		}
	}
}

// add puts the word the last find did not find, with list index n, in the
// slot find returned, and grows the table past three quarters full.
func (s *wordSet) add(slot uint32, n int) {
	s.hashes = append(s.hashes, s.next)
	s.slots[slot] = int32(n + 1)
	if 4*(n+1) < 3*len(s.slots) {
		return
	}
	size := 2 * len(s.slots)
	s.slots, s.mask = make([]int32, size), uint32(size-1)
	for k, h := range s.hashes {
		i := h & s.mask
		for s.slots[i] != 0 {
			i = (i + 1) & s.mask
		}
		s.slots[i] = int32(k + 1)
	}
}

// shortText is the length under which Words keeps no set of the words it
// has seen.
const shortText = 512

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }

// IndexWords is the word list a store indexes for a blob: the words of its
// text, name, tool calls and tool definitions, at most maxIndexBytes of
// them. A blob that does not decode indexes nothing.
func IndexWords(data []byte) []string {
	c, err := DecodeContent(data)
	if err != nil {
		return nil
	}
	var b strings.Builder
	b.WriteString(c.Name)
	b.WriteByte(' ')
	b.WriteString(c.RenderedText())
	for _, tool := range c.Tools {
		b.WriteByte(' ')
		b.WriteString(tool.Name)
		b.WriteByte(' ')
		b.WriteString(tool.Description)
	}
	words := Words(b.String())
	size := 0
	for i, w := range words {
		size += len(w) + 1
		if size > maxIndexBytes {
			return words[:i]
		}
	}
	return words
}

// SearchQuery selects commits with content for Reader.Search. Empty fields
// match everything.
type SearchQuery struct {
	// Tract is the author tract's id.
	Tract string
	// Words must all be among a commit's content words.
	Words []string
	Type  Type
	Role  string
	// Commits, when not nil, limits the result to these commits.
	Commits []Hash
	// HasMeta keeps only commits with metadata.
	HasMeta bool
	// Limit, when positive, keeps the first Limit matches by time, then
	// hash.
	Limit int
}

// FindOptions are the filters of Repo.Find; every one given must hold.
type FindOptions struct {
	// Text is a word query: every word of it must occur in the content.
	Text string
	Type Type
	Role string
	// Tag limits the result to the commit the tag names, or with a
	// pattern (*, ?, [...]) to the commits of every tag it matches.
	Tag string
	// Meta maps metadata keys to the value each must hold.
	Meta map[string]string
	// AllTracts searches every tract's commits, not only the tract's own.
	AllTracts bool
	// Limit, when positive, keeps the first Limit matches.
	Limit int
}

// Validate checks the options.
func (o FindOptions) Validate() error {
	if o.Type != "" {
		if _, ok := allowedRoles(o.Type); !ok {
			return &ValidationError{Field: "type", Value: string(o.Type), Reason: "want one of " + typeNames()}
		}
	}
	if TagPattern(o.Tag) {
		if err := validateTagMatch(o.Tag); err != nil {
			return err
		}
	}
	if o.Limit < 0 {
		return &ValidationError{Field: "limit", Value: fmt.Sprint(o.Limit), Reason: "must not be negative"}
	}
	if o.Text != "" && len(Words(o.Text)) == 0 {
		return &ValidationError{Field: "text", Value: o.Text, Reason: "holds no word to search for (letters or digits)"}
	}
	return nil
}

func typeNames() string {
	names := make([]string, len(Types))
	for i, t := range Types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// Found is one commit find returned, with its content.
type Found struct {
	Commit  Commit  `json:"commit"`
	Tract   string  `json:"tract"`
	Content Content `json:"content"`
}

// Find returns the commits with content matching every filter, oldest
// first (by time, then hash): by default the tract's own commits on any
// branch, with AllTracts every stored commit. It reads the matching rows
// through the store's full-text index, not the whole history.
func (r *Repo) Find(ctx context.Context, tractName string, o FindOptions) ([]Found, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	// Searching every tract needs no tract of its own: a store of imported
	// sessions has no main. A tag names a commit of the tract, so it does.
	var t Tract
	if !o.AllTracts || o.Tag != "" {
		var err error
		if t, err = r.Tract(ctx, tractName); err != nil {
			return nil, err
		}
	}
	q := SearchQuery{Words: Words(o.Text), Type: o.Type, Role: o.Role, HasMeta: len(o.Meta) > 0}
	if o.Text == "" {
		q.Words = nil
	}
	if !o.AllTracts {
		q.Tract = t.ID
	}
	if len(o.Meta) == 0 {
		q.Limit = o.Limit // metadata is matched here, after the store's limit would cut
	}
	if o.Tag != "" {
		hs, err := tagCommits(ctx, r.store, t, o.Tag)
		if err != nil {
			return nil, err
		}
		q.Commits = hs
	}
	hits, err := r.store.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(hits, func(a, b HistoryCommit) int {
		if c := a.Commit.Time.Compare(b.Commit.Time); c != 0 {
			return c
		}
		return strings.Compare(string(a.Commit.Hash), string(b.Commit.Hash))
	})
	keys := make([]string, 0, len(o.Meta))
	for k := range o.Meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := []Found{}
	for _, h := range hits {
		ok := true
		for _, k := range keys {
			ok = ok && metaMatches(h.Commit.Meta, k, o.Meta[k])
		}
		if !ok {
			continue
		}
		if got := sha256Hex(h.Blob.Data); got != h.Commit.Content {
			return nil, &IntegrityError{Commit: h.Commit.Hash, Blob: h.Commit.Content, Got: got}
		}
		c, err := DecodeContent(h.Blob.Data)
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", h.Commit.Hash.Short(), err)
		}
		out = append(out, Found{Commit: h.Commit, Tract: t.Name, Content: c})
		if o.Limit > 0 && len(out) == o.Limit {
			break
		}
	}
	if err := r.nameFoundTracts(ctx, t, out); err != nil {
		return nil, err
	}
	return out, nil
}

// nameFoundTracts sets the tract name of each found commit not in t, the
// tracts of all of them read in one store call (a search of every tract
// finds commits of many).
func (r *Repo) nameFoundTracts(ctx context.Context, t Tract, out []Found) error {
	var ids []string
	seen := map[string]bool{t.ID: true}
	for _, f := range out {
		if !seen[f.Commit.Tract] {
			seen[f.Commit.Tract] = true
			ids = append(ids, f.Commit.Tract)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	ts, err := r.store.TractsByID(ctx, ids)
	if err != nil {
		return err
	}
	names := make(map[string]string, len(ts)+1)
	names[t.ID] = t.Name
	for _, at := range ts {
		names[at.ID] = at.Name
	}
	for i := range out {
		out[i].Tract = names[out[i].Commit.Tract]
	}
	return nil
}
