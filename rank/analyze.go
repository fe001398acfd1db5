package rank

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// maxTokenBytes bounds the length of one token; longer runs of letters are cut there.
const maxTokenBytes = 64

// An analyzer turns text into index terms: it folds compatibility forms and accents
// (NFKD, combining marks dropped), splits words at separators and at camelCase
// boundaries, folds case (full Unicode case folding), drops stop words, expands common
// abbreviations, stems, and cuts CJK runs into overlapping character bigrams.
//
// An analyzer holds scratch buffers; it is not safe for concurrent use. Terms are written
// to out, one after another, term i ending at ends[i].
type analyzer struct {
	src   []byte // normalised text being scanned
	word  []byte // the current word, combining marks removed
	fold  []byte // case-folded copy of a non-ASCII word
	cjk   []rune // the current CJK run
	out   []byte
	ends  []int32
	caser cases.Caser
}

func newAnalyzer() *analyzer {
	return &analyzer{caser: cases.Fold()}
}

// reset forgets the terms produced so far.
func (a *analyzer) reset() {
	a.out = a.out[:0]
	a.ends = a.ends[:0]
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

// rune classes seen by the word splitter.
const (
	clsSep = iota
	clsLower
	clsUpper
	clsDigit
	clsCJK
	clsMark
)

func classify(r rune) int {
	if r < utf8.RuneSelf {
		switch {
		case 'a' <= r && r <= 'z':
			return clsLower
		case 'A' <= r && r <= 'Z':
			return clsUpper
		case '0' <= r && r <= '9':
			return clsDigit
		}
		return clsSep
	}
	switch {
	case unicode.Is(unicode.Mn, r):
		return clsMark
	case isCJK(r):
		return clsCJK
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return clsUpper
	case unicode.IsLetter(r):
		return clsLower
	case unicode.IsDigit(r):
		return clsDigit
	}
	return clsSep
}

// isCJK reports whether r belongs to a script written without spaces between words.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r == 'ー' // katakana prolonged sound mark is Common script
}

// lowerAt reports whether the rune starting at src[i] is a lower-case letter.
func lowerAt(src []byte, i int) bool {
	if i >= len(src) {
		return false
	}
	r, _ := utf8.DecodeRune(src[i:])
	return classify(r) == clsLower
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

// add analyzes text and appends its terms.
func (a *analyzer) add(text string) {
	ascii := true
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		a.src = append(a.src[:0], text...)
	} else {
		a.src = norm.NFKD.AppendString(a.src[:0], text)
	}
	src := a.src
	a.word = a.word[:0]
	a.cjk = a.cjk[:0]
	prev := clsSep // class of the previous letter or digit in the current word
	for i := 0; i < len(src); {
		r, size := rune(src[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(src[i:])
		}
		c := classify(r)
		switch c {
		case clsMark:
			i += size
			continue // accents vanish without splitting the word
		case clsCJK:
			a.flushWord()
			prev = clsSep
			a.cjk = append(a.cjk, r)
			i += size
			continue
		}
		a.flushCJK()
		if c == clsSep {
			// An apostrophe inside a word joins it ("user's" -> "users").
			if isApostrophe(r) && len(a.word) > 0 && i+size < len(src) {
				if nr, _ := utf8.DecodeRune(src[i+size:]); classify(nr) == clsLower {
					i += size
					continue
				}
			}
			a.flushWord()
			prev = clsSep
			i += size
			continue
		}
		if len(a.word) > 0 && c == clsUpper {
			switch prev {
			case clsLower, clsDigit:
				a.flushWord() // listBranches, getV2Config
			case clsUpper:
				// HTTPServer splits before the S, but IDs and VMs stay whole.
				j := i + size
				if j < len(src) {
					nr, ns := utf8.DecodeRune(src[j:])
					if classify(nr) == clsLower && !(nr == 's' && !lowerAt(src, j+ns)) {
						a.flushWord()
					}
				}
			}
		}
		a.word = utf8.AppendRune(a.word, r)
		prev = c
		i += size
	}
	a.flushWord()
	a.flushCJK()
}

// flushCJK emits the pending CJK run as overlapping bigrams, or as one unigram when the
// run is a single character.
func (a *analyzer) flushCJK() {
	run := a.cjk
	if len(run) == 0 {
		return
	}
	if len(run) == 1 {
		a.out = utf8.AppendRune(a.out, run[0])
		a.ends = append(a.ends, int32(len(a.out)))
	}
	for i := 0; i+1 < len(run); i++ {
		a.out = utf8.AppendRune(a.out, run[i])
		a.out = utf8.AppendRune(a.out, run[i+1])
		a.ends = append(a.ends, int32(len(a.out)))
	}
	a.cjk = a.cjk[:0]
}

// flushWord folds the pending word and emits its terms.
func (a *analyzer) flushWord() {
	w := a.word
	if len(w) == 0 {
		return
	}
	a.word = a.word[:0]
	ascii := true
	for _, b := range w {
		if b >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
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
	if utf8.RuneCount(w) < 2 {
		return
	}
	if _, stop := stopWords[string(w)]; stop {
		return
	}
	if exp, ok := abbreviations[string(w)]; ok {
		for _, e := range exp {
			a.out = append(a.out, e...)
			a.ends = append(a.ends, int32(len(a.out)))
		}
		return
	}
	a.out = append(a.out, stem(w)...)
	a.ends = append(a.ends, int32(len(a.out)))
}

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
