package rank

import (
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/cases"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// maxTokenBytes bounds the length of one token; longer runs of letters are cut there.
const maxTokenBytes = 64

// An analyzer turns text into index terms: it folds compatibility forms and accents
// (NFKD, combining marks dropped), splits words at separators and at camelCase
// boundaries, folds case (full Unicode case folding), drops stop words, expands common
// abbreviations, stems, and cuts CJK runs into overlapping character bigrams. Asked to,
// it also emits words as written beside their stems, and pairs of consecutive words.
//
// An analyzer holds scratch buffers; it is not safe for concurrent use. Terms are written
// to out, one after another, term i ending at ends[i].
type analyzer struct {
	src   []byte // normalised text being scanned
	word  []byte // the current word, combining marks removed
	whole []byte // the letters since the last separator, across camelCase boundaries
	parts int    // camelCase boundaries seen in whole
	fold  []byte // case-folded copy of a non-ASCII word
	surf  []byte // a word as written, before stemming
	cjk   []rune // the current CJK run
	out   []byte
	ends  []int32
	kind  []termKind // kind[i] says where term i comes from
	// parent[i] is, for a word as written or a pair, the index of the stem that every
	// doc holding term i holds too; -1 for other terms.
	parent []int32
	// caser folds case: cases.Fold, boxed once, as appendTransform takes it (boxing a
	// Caser at each call allocated once per non-ASCII word).
	caser transform.Transformer
	iter  norm.Iter

	synonyms bool    // add the synonyms of query words (for queries, not documents)
	pairs    bool    // add pairs of consecutive words as written
	prev     []byte  // the previous word as written, for pairs; empty after a break
	prevAt   int32   // the index of the previous word's stem term
	surface  bool    // keep words as written beside their stems
	off      feature // features turned off, to measure what each one brings
	// memo, when set, is given each folded word instead of its terms (stop words,
	// abbreviations and stemming are left to it), and each other term as it is
	// emitted instead of keeping it: only for text without pairs of words or synonyms,
	// whose terms depend on more than the word, and no whole-name term.
	memo   *wordMemo
	bigram []byte // the CJK term being emitted
}

// A feature is a step of analysis that can be turned off in evaluations.
type feature uint

const (
	featSplit    feature = 1 << iota // split words at camelCase boundaries and at _ - . (else only spaces)
	featStem                         // fold inflections
	featStop                         // drop stop words
	featAbbrev                       // expand abbreviations
	featSynonyms                     // add synonyms to queries
	featCJK                          // cut CJK runs into bigrams (else a run is one term)
	featAccents                      // drop combining marks (else they stay in the term)
)

func newAnalyzer(off feature) *analyzer {
	return &analyzer{caser: cases.Fold(), off: off}
}

// reset forgets the terms produced so far.
func (a *analyzer) reset() {
	a.out = a.out[:0]
	a.ends = a.ends[:0]
	a.kind = a.kind[:0]
	a.parent = a.parent[:0]
}

// n reports the number of terms produced since the last reset.
func (a *analyzer) n() int { return len(a.ends) }

// term returns term i. The slice aliases the analyzer's buffer.
func (a *analyzer) term(i int) []byte {
	start := int32(0)
	if i > 0 {
		start = a.ends[i-1]
	}
	return a.out[start:a.ends[i]]
}

// add analyzes text and appends its terms.
func (a *analyzer) add(text string) {
	src := a.source(text)
	a.prev = a.prev[:0]
	a.word = a.word[:0]
	a.whole = a.whole[:0]
	a.parts = 0
	a.cjk = a.cjk[:0]
	prev := clsSep // class of the previous letter or digit in the current word
	for i := 0; i < len(src); {
		r, size := rune(src[i]), 1
		var c int
		if r < utf8.RuneSelf {
			c = int(asciiClass[r])
			if a.memo != nil && c != clsSep && a.betweenWords() {
				if j := a.memoWords(src, i); j > i {
					prev = clsSep // nothing pending: prev is read only when a word is
					i = j
					continue
				}
			}
			if (c == clsLower || c == clsDigit) && len(a.cjk) == 0 {
				j := a.addLowerRun(src, i)
				prev = int(asciiClass[src[j-1]])
				i = j
				continue
			}
			if c == clsSep && a.betweenWords() {
				// A separator with no word pending (the space after one addLowerRun
				// emitted): nothing to end, no apostrophe to join.
				prev = clsSep
				i++
				continue
			}
		} else {
			r, size = utf8.DecodeRune(src[i:])
			c = classify(r)
		}
		switch c {
		case clsMark:
			if a.off&featAccents == 0 {
				i += size
				continue // accents vanish without splitting the word
			}
			c = clsLower
		case clsCJK:
			a.flushWord()
			a.flushWhole()
			prev = clsSep
			a.cjk = append(a.cjk, r)
			i += size
			continue
		}
		if len(a.cjk) > 0 {
			a.flushCJK()
		}
		if c == clsSep && a.off&featSplit != 0 && r != ' ' && r != '\n' && r != '\t' {
			c = clsLower // only white space separates words
		}
		if c == clsSep {
			// An apostrophe inside a word joins it ("user's" -> "users").
			if isApostrophe(r) && len(a.word) > 0 && i+size < len(src) {
				if lowerAt(src, i+size) {
					i += size
					continue
				}
			}
			a.flushWord()
			a.flushWhole()
			prev = clsSep
			i += size
			continue
		}
		if len(a.word) > 0 && c == clsUpper && a.off&featSplit == 0 && camelBoundary(src, i+size, prev) {
			a.flushWord()
			a.parts++
		}
		if r < utf8.RuneSelf {
			a.word = append(a.word, byte(r))
			a.whole = append(a.whole, byte(r))
		} else {
			a.appendRune(src, i, r, size)
		}
		prev = c
		i += size
	}
	a.flushWord()
	if len(a.whole) > 0 { // parts > 0 only then
		a.flushWhole()
	}
	if len(a.cjk) > 0 {
		a.flushCJK()
	}
}

// source returns the bytes add scans for text: text itself, read where it is, when a
// memo counts its terms and it is ASCII (nothing then writes to it: stemming, which
// rewrites a word in place, happens on the memo's copy of a new word); otherwise a copy
// in a.src, decomposed (NFKD) when not ASCII.
func (a *analyzer) source(text string) []byte {
	if b := unsafe.Slice(unsafe.StringData(text), len(text)); a.memo != nil && isASCII(b) {
		return b
	}
	a.src = append(a.src[:0], text...)
	if !isASCII(a.src) {
		a.src = appendNFKD(a.src[:0], &a.iter, text)
	}
	return a.src
}

// appendNFKD appends the NFKD decomposition of text to dst, with it, an Iter kept so
// that decomposing allocates nothing. A character whose decomposition holds starters
// only (a ligature: U+FDFA is 18 code points) between two starters is a segment of its
// own: its stored decomposition is appended as it is, where the Iter, emitting it one
// segment at a time, took about 50 ns a code point; the text around it goes through
// the Iter (TestAppendNFKD and FuzzAppendNFKD check the result is the Iter's).
func appendNFKD(dst []byte, it *norm.Iter, text string) []byte {
	start := 0 // text[start:i] is left for the Iter
	for i := 0; i < len(text); {
		if !longLead[text[i]] {
			i++ // ASCII, a byte inside a character, or the first of one of no long block
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if !longBlock(r) {
			i += n
			continue
		}
		p := norm.NFKD.PropertiesString(text[i:])
		if d := p.Decomposition(); len(d) > longDecomposition && p.LeadCCC() == 0 && p.TrailCCC() == 0 && starterAt(text, i+n) {
			dst = appendIter(dst, it, text[start:i])
			dst = append(dst, d...)
			start = i + n
		}
		i += n
	}
	return appendIter(dst, it, text[start:])
}

// longDecomposition is the length in bytes beyond which appendNFKD appends a
// character's decomposition itself.
const longDecomposition = 2 * utf8.UTFMax

// longLead marks the bytes that start the characters of longBlock's blocks in UTF-8,
// so that appendNFKD decodes no other character (Latin, Cyrillic, marks, CJK
// ideographs).
var longLead = func() (t [256]bool) {
	for _, b := range []byte{0xE0, 0xE2, 0xE3, 0xEF, 0xF0} {
		t[b] = true
	}
	return t
}()

// longBlock reports whether r is in a block of 256 code points holding characters of
// decompositions longer than longDecomposition in x/text's tables (U+0Cxx, 0Dxx, 0Fxx,
// 20xx, 22xx, 2Axx, 32xx, 33xx, FDxx, 1D1xx, 1F2xx; TestAppendNFKD checks the list),
// whose decomposition appendNFKD looks up; a block missing here only loses the
// shortcut.
func longBlock(r rune) bool {
	switch r >> 8 {
	case 0x0C, 0x0D, 0x0F, 0x20, 0x22, 0x2A, 0x32, 0x33, 0xFD, 0x1D1, 0x1F2:
		return true
	}
	return false
}

// starterAt reports whether the character at text[i] starts a segment of NFKD (its
// decomposition's first code point has combining class 0), or i is the end of text.
func starterAt(text string, i int) bool {
	return i >= len(text) || text[i] < utf8.RuneSelf || norm.NFKD.PropertiesString(text[i:]).LeadCCC() == 0
}

// appendIter appends the NFKD decomposition of text to dst with it.
func appendIter(dst []byte, it *norm.Iter, text string) []byte {
	if text == "" {
		return dst
	}
	it.InitString(norm.NFKD, text)
	for !it.Done() {
		dst = append(dst, it.Next()...)
	}
	return dst
}

// camelBoundary reports whether an upper-case letter ending at src[j-1], after a letter
// or digit of class prev in the same word, starts a new camelCase part: always after a
// lower-case letter or a digit (listBranches, getV2Config), after an upper-case letter
// as upperSplits says. Small enough to inline: after a lower-case letter or a digit,
// add makes no call.
func camelBoundary(src []byte, j int, prev int) bool {
	if prev == clsUpper {
		return upperSplits(src, j)
	}
	return prev == clsLower || prev == clsDigit
}

// upperSplits reports whether an upper-case letter ending at src[j-1], after another,
// starts a new camelCase part: when a lower-case letter follows it (HTTPServer splits
// before the S) other than a plural's final s (IDs and VMs stay whole).
func upperSplits(src []byte, j int) bool {
	if j >= len(src) {
		return false
	}
	nr, ns := rune(src[j]), 1
	if nr >= utf8.RuneSelf {
		nr, ns = utf8.DecodeRune(src[j:])
	}
	return classify(nr) == clsLower && !(nr == 's' && !lowerAt(src, j+ns))
}

// betweenWords reports whether no word, camelCase word or CJK run is pending and words
// split at every separator: add's ASCII fast paths may then start at the next byte.
func (a *analyzer) betweenWords() bool {
	return a.off&featSplit == 0 && len(a.word) == 0 && len(a.whole) == 0 && len(a.cjk) == 0
}

// appendRune appends the non-ASCII rune r of size bytes at src[i] to the word and the
// whole word, as its bytes in src: AppendRune would write the same bytes, and a malformed
// byte decodes to a RuneError of size 1, written as U+FFFD.
func (a *analyzer) appendRune(src []byte, i int, r rune, size int) {
	if r == utf8.RuneError && size == 1 {
		a.word = utf8.AppendRune(a.word, r)
		a.whole = utf8.AppendRune(a.whole, r)
	} else {
		a.word = append(a.word, src[i:i+size]...)
		a.whole = append(a.whole, src[i:i+size]...)
	}
}

// flushWhole emits a word that camelCase split into two parts as one more term, joined,
// so that "JavaScript" is found by "javascript" as well as by "java script". Words of more
// parts (getPullRequestReviews) are not joined: nobody types them whole.
func (a *analyzer) flushWhole() {
	if a.parts == 1 {
		// The joined word is not a word of the text's sequence: it makes no pair.
		pairs := a.pairs
		a.pairs = false
		a.foldAndEmit(a.whole)
		a.pairs = pairs
	}
	a.whole = a.whole[:0]
	a.parts = 0
}

// flushCJK emits the pending CJK run as overlapping bigrams, or as one unigram when the
// run is a single character.
func (a *analyzer) flushCJK() {
	run := a.cjk
	if len(run) == 0 {
		return
	}
	if len(run) == 1 || a.off&featCJK != 0 {
		a.bigram = a.bigram[:0]
		for _, r := range run {
			a.bigram = utf8.AppendRune(a.bigram, r)
		}
		a.emit(a.bigram, termWord)
		a.cjk = a.cjk[:0]
		return
	}
	for i := 0; i+1 < len(run); i++ {
		a.bigram = utf8.AppendRune(a.bigram[:0], run[i])
		a.bigram = utf8.AppendRune(a.bigram, run[i+1])
		a.emit(a.bigram, termWord)
	}
	a.cjk = a.cjk[:0]
}

// flushWord folds the pending word and emits its terms.
func (a *analyzer) flushWord() {
	if len(a.word) > 0 {
		a.foldAndEmit(a.word)
	}
	a.word = a.word[:0]
}

// foldAndEmit folds the case of w, in place when it is ASCII, and emits its terms.
func (a *analyzer) foldAndEmit(w []byte) {
	if isASCII(w) {
		for i, b := range w {
			if 'A' <= b && b <= 'Z' {
				w[i] = b + 'a' - 'A'
			}
		}
	} else {
		a.caser.Reset()
		a.fold = a.fold[:0]
		var err error
		a.fold, err = appendTransform(a.fold, a.caser, w)
		if err != nil {
			return
		}
		w = a.fold
	}
	if len(w) > maxTokenBytes {
		cut := maxTokenBytes
		for cut > 0 && !utf8.RuneStart(w[cut]) {
			cut--
		}
		w = w[:cut]
	}
	a.emitWord(w)
}

// emitWord applies stop words, abbreviations and stemming to a folded word.
func (a *analyzer) emitWord(w []byte) {
	// A word of two bytes or more starting with an ASCII byte has two runes or more.
	if len(w) < 2 || len(w) <= utf8.UTFMax && w[0] >= utf8.RuneSelf && utf8.RuneCount(w) < 2 {
		return
	}
	if a.memo != nil {
		a.memo.countWord(w)
		return
	}
	lex, _ := lookupLexicon(w)
	if lex.stop && a.off&featStop == 0 {
		return
	}
	if exp := lex.abbrev; exp != nil && a.off&featAbbrev == 0 {
		kind := termWord
		if len(exp) > 1 {
			kind = termPart // "VM" is one word of the text, not two
		}
		for _, e := range exp {
			a.emit(e, kind)
		}
		a.prev = a.prev[:0] // an abbreviation is not written as its words: no pair
		return
	}
	if a.synonyms && a.off&featSynonyms == 0 {
		if syn, ok := synonyms[string(w)]; ok {
			for _, e := range syn {
				a.emit(e, termSynonym)
			}
		}
		if len(a.prev) > 0 && a.pairs {
			if syn, ok := phrasalVerbs[phrasal{string(a.prev), string(w)}]; ok {
				a.emit(syn, termSynonym)
				// The verb alone means something else ("set up" is not set_*): it
				// weighs as a synonym.
				a.kind[a.prevAt] = termSynonym
			}
		}
	}
	if a.off&featStem != 0 {
		a.emit(w, termWord)
		if a.pairs {
			a.emitPair(w, int32(a.n()-1))
		}
		return
	}
	// The word as written is kept after its stem, so that "advisories" prefers
	// list_global_security_advisories to get_global_security_advisory. A doc holding
	// the word as written always holds its stem.
	a.surf = append(a.surf[:0], w...)
	if !lex.keep {
		w = stemRules(w)
	}
	a.emit(w, termWord)
	at := int32(a.n() - 1)
	if a.pairs {
		a.emitPair(a.surf, at)
	}
	if a.surface && string(a.surf) != string(w) {
		a.emit(a.surf, termSurface)
		a.parent[a.n()-1] = at
	}
}

// addWhole appends one more term: the word terms produced so far (synonyms left out),
// joined by spaces after a 0x01 byte that no other term holds. For a name it is the key
// of the whole name; for a query, the query that names a tool exactly
// ("list_group_wiki_pages", "list group wiki pages") finds it by this term.
func (a *analyzer) addWhole() {
	n := a.n()
	start := len(a.out)
	a.out = append(a.out, wholeMark)
	for i := range n {
		if !a.kind[i].isWord() {
			continue
		}
		if len(a.out) > start+1 {
			a.out = append(a.out, ' ')
		}
		a.out = append(a.out, a.term(i)...)
	}
	if len(a.out) == start+1 {
		a.out = a.out[:start]
		return
	}
	a.ends = append(a.ends, int32(len(a.out)))
	a.kind = append(a.kind, termWord)
	a.parent = append(a.parent, -1)
}

// wholeMark starts the term of a whole name.
const wholeMark = 0x01

// emitPair emits the previous word and w, as written (folded, not stemmed), as one term
// after a pairMark, and makes w the previous word; stemAt is the index of w's stem. Stop
// words were dropped before: "pull requests waiting for my review" pairs "waiting" with
// "review".
func (a *analyzer) emitPair(w []byte, stemAt int32) {
	if len(a.prev) > 0 {
		a.out = append(a.out, pairMark)
		a.out = append(a.out, a.prev...)
		a.out = append(a.out, ' ')
		a.emit(w, termPair)
		a.parent[a.n()-1] = stemAt
	}
	a.prev = append(a.prev[:0], w...)
	a.prevAt = stemAt
}

// pairMark starts the term of a pair of words.
const pairMark = 0x02

// emit appends term, of kind kind, to the terms produced, or gives it to the memo.
func (a *analyzer) emit(term []byte, kind termKind) {
	if a.memo != nil {
		a.memo.count(term, kind)
		return
	}
	a.out = append(a.out, term...)
	a.ends = append(a.ends, int32(len(a.out)))
	a.kind = append(a.kind, kind)
	a.parent = append(a.parent, -1)
}

// words reports the number of terms of a word kind (isWord).
func (a *analyzer) words() int {
	n := 0
	for _, k := range a.kind {
		if k.isWord() {
			n++
		}
	}
	return n
}

// A termKind says where a term comes from.
type termKind uint8

const (
	termWord    termKind = iota // a word of the text, stemmed
	termSynonym                 // a synonym added to a query word
	termSurface                 // a word as written, when its stem differs
	termPair                    // two consecutive words as written
	termPart                    // a word of an abbreviation's expansion of several words ("VM": virtual, machine)
)

// isWord reports whether a term of kind k is a word of the text: its stem, or one word
// of an abbreviation's expansion. A document counts them all in its field's length.
func (k termKind) isWord() bool { return k == termWord || k == termPart }

// appendTransform appends t applied to src to dst without allocating when dst has room.
func appendTransform(dst []byte, t transform.Transformer, src []byte) ([]byte, error) {
	for {
		if cap(dst)-len(dst) < len(src)+utf8.UTFMax {
			dst = append(dst, make([]byte, len(src)+2*utf8.UTFMax)...)[:len(dst)]
		}
		nDst, nSrc, err := t.Transform(dst[len(dst):cap(dst)], src, true)
		dst = dst[:len(dst)+nDst]
		src = src[nSrc:]
		switch err {
		case nil:
			return dst, nil
		case transform.ErrShortDst:
			dst = append(dst, make([]byte, 2*len(src)+2*utf8.UTFMax)...)[:len(dst)]
		default:
			return dst, err
		}
	}
}
