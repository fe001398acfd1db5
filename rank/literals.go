package rank

import (
	"slices"
	"strings"
)

// This file holds a query's literal text: the words of its quoted or backquoted spans
// and of its paths and URLs, weighed as values the task passes on.

// literalWeight is the weight in a query of a word of its quoted text or code ('Fix
// login timeout', `npm install`): a value the task passes on, not a word of the task.
var literalWeight = 0.5

// maxLiterals bounds the quoted spans of a query weighed as literals.
const maxLiterals = 8

// addLiterals analyses query, recording in s.steps.lits the ranges of terms that come
// from its quoted or backquoted text. Each quoted span is analysed on its own, so no
// pair of words crosses a quote.
func (s *scratch) addLiterals(query string) {
	st := &s.steps
	st.nlit, st.npath = 0, 0
	start := 0
	for st.nlit < maxLiterals {
		open, end := nextQuoted(query, start)
		if open < 0 {
			break
		}
		s.addPlain(query[start:open])
		from := s.an.n()
		s.an.add(query[open+1 : end])
		st.lits[st.nlit] = [2]int32{int32(from), int32(s.an.n())}
		st.litAt[st.nlit] = [2]int32{int32(open + 1), int32(end)}
		st.nlit++
		start = end + 1
	}
	s.addPlain(query[start:])
}

// addPlain analyses text, unquoted, recording in s.steps.paths the ranges of the terms
// of each URL or path it holds (a word holding a slash: https://..., content/drafts,
// acme/docs), analysed on its own.
func (s *scratch) addPlain(text string) {
	addPathWords(s.an, text, &s.steps.paths, &s.steps.npath)
}

// addPathWords analyses text, each word of it holding a slash on its own, recording
// those words' term ranges in out from out[*n] on, *n counting them (up to maxLiterals).
func addPathWords(an *analyzer, text string, out *[maxLiterals][2]int32, n *int) {
	if !strings.ContainsRune(text, '/') {
		an.add(text)
		return
	}
	pos := 0
	for i := 0; i < len(text) && *n < maxLiterals; {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		end := i
		for end < len(text) && !isSpace(text[end]) {
			end++
		}
		if end > i && strings.IndexByte(text[i:end], '/') >= 0 {
			an.add(text[pos:i])
			from := an.n()
			an.add(text[i:end])
			out[*n] = [2]int32{int32(from), int32(an.n())}
			*n++
			pos = end
		}
		i = end
	}
	an.add(text[pos:])
}

// findEchoes records in s.steps.echo the terms of the query's URLs and paths (a word
// holding a slash) that the query holds outside them too: a path repeats the words of
// the request around it (".../-/pipelines/99812" after "the failing pipeline", "the
// drafts under content/drafts"), which would count twice. It reads s.ids once to gather
// the terms outside the paths, sorted, so that a long path costs n log n, not n².
func (s *scratch) findEchoes() {
	st := &s.steps
	st.necho = 0
	paths := st.paths[:st.npath]
	if len(paths) == 0 {
		return // most queries: no scan
	}
	outside := st.outside[:0]
	for j, id := range s.ids {
		if id != noTerm && !inRanges(paths, j) {
			outside = append(outside, id)
		}
	}
	slices.Sort(outside)
	st.outside = outside
	for i, id := range s.ids {
		if st.necho == maxEcho {
			return
		}
		if id == noTerm || s.an.parent[i] >= 0 || !inRanges(paths, i) || slices.Contains(st.echo[:st.necho], id) {
			continue
		}
		if _, ok := slices.BinarySearch(outside, id); ok {
			st.echo[st.necho] = id
			st.necho++
		}
	}
}

// pathEcho reports whether query term i comes from a URL or path and is a term the
// query holds outside them (findEchoes), or the word as written or a pair of one: the
// query counts it once.
func (s *scratch) pathEcho(i int) bool {
	return s.steps.echoes(s.an, s.steps.paths[:s.steps.npath], i, func(j int) uint32 { return s.ids[j] })
}

// quotedAt reports whether byte pos of query is inside quoted or backquoted text, as
// addLiterals reads it.
func quotedAt(query string, pos int) bool {
	for from := 0; ; {
		open, end := nextQuoted(query, from)
		if open < 0 || open >= pos {
			return false
		}
		if pos <= end {
			return true
		}
		from = end + 1
	}
}

// nextQuoted returns the indexes of the opening and closing quotes of the first quoted
// or backquoted span of query opening at or after from; -1, -1 if none. A quote opens
// a span when a non-space follows it and, for ', when it starts a word (else it is an
// apostrophe), and when it is closed (closingQuote).
//
// Whether a quote closes a span does not depend on where the span opened, so a quote
// with no closing one after an opening is closed after no later opening either: it is
// not looked for again, and a query of many unclosed quotes is read in linear time.
func nextQuoted(query string, from int) (open, end int) {
	var unclosed [3]bool // ', " and `: no closing quote after the last opening tried
	for i := from; i < len(query); i++ {
		q := query[i]
		k := quoteKind(q)
		if k < 0 || unclosed[k] {
			continue
		}
		if i+1 >= len(query) || isSpace(query[i+1]) || (q == '\'' && i > 0 && !isSpace(query[i-1]) && query[i-1] != '(') {
			continue // not an opening quote: an apostrophe, or a quote before a space
		}
		if end := closingQuote(query, i+1, q); end >= 0 {
			return i, end
		}
		unclosed[k] = true
	}
	return -1, -1
}

// quoteKind returns the index of quote q among ', " and `, -1 for another byte.
func quoteKind(q byte) int {
	switch q {
	case '\'':
		return 0
	case '"':
		return 1
	case '`':
		return 2
	}
	return -1
}

// closingQuote returns the index of the quote q closing the span opened before from: a
// q after a non-space and before a space, punctuation or the end; -1 if none.
func closingQuote(query string, from int, q byte) int {
	for j := from + 1; j < len(query); j++ {
		if query[j] != q || isSpace(query[j-1]) {
			continue
		}
		if j+1 == len(query) {
			return j
		}
		switch query[j+1] {
		case ' ', '\t', '\n', ',', '.', ';', ':', '!', '?', ')':
			return j
		}
	}
	return -1
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// literalFactor returns the factor of the weight of query term i: literalWeight for a
// term of quoted text, else 1.
func (s *scratch) literalFactor(i int) float64 {
	st := &s.steps
	if int32(i) >= st.hint[0] && int32(i) < st.hint[1] {
		return hintWeight
	}
	if s.quoted(i) {
		return literalWeight
	}
	return 1
}

// quoted reports whether query term i comes from quoted or backquoted text.
func (s *scratch) quoted(i int) bool { return inRanges(s.steps.lits[:s.steps.nlit], i) }

// inRanges reports whether i is in one of the half-open ranges rs of query terms.
func inRanges(rs [][2]int32, i int) bool {
	for _, r := range rs {
		if int32(i) >= r[0] && int32(i) < r[1] {
			return true
		}
	}
	return false
}

// countWords returns the number of words of text, separated by white space.
func countWords(text string) int {
	n, in := 0, false
	for i := 0; i < len(text); i++ {
		sp := isSpace(text[i])
		if !sp && !in {
			n++
		}
		in = !sp
	}
	return n
}
