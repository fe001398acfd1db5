package rank

import "strings"

// hintWeight is the weight of the words a query gets from the kind of value it holds
// (addHints).
var hintWeight = 0.5

// Hints: the word a query gets for each kind of value it names without the word itself.
const (
	hintFile  = iota // a file name: docs/CONTRIBUTING.md, ./fixtures/avatar.png
	hintURL          // a URL: https://example.com/login, www.notion.so/...
	hintCode         // backquoted code: `Events | take 10`, `foo()`
	hintJS           // backquoted JavaScript: `document.querySelectorAll('a').length`
	hintTitle        // a thing named by its quoted title: the 'Pricing FAQ' page
	numHints
)

// hintWords are the words of the hints, and hintStems their stems.
var (
	hintWords = [numHints]string{"file", "url", "code", "javascript", "search"}
	hintStems [numHints]string
)

func init() {
	for i, w := range hintWords {
		hintStems[i] = string(stem([]byte(w)))
	}
}

// addHints adds to the analysed query the word of each kind of value it names (a file,
// a URL, code, JavaScript: hintWords) when the query lacks that word, recording their
// terms' range in s.steps.hint: a path or a URL points to the tools of files or of
// URLs, whose own text says "file" or "URL".
func (s *scratch) addHints(query string) {
	s.steps.hint = [2]int32{}
	s.steps.titled = false
	if hintWeight == 0 {
		return
	}
	var want [numHints]bool
	want[hintFile] = namesFile(query)
	want[hintURL] = namesURL(query)
	want[hintCode], want[hintJS] = codeKind(query)
	want[hintTitle] = s.steps.namesTitled(query) || namesTitledCaps(query)
	for i := 0; i < s.an.n(); i++ {
		if !s.an.kind[i].isWord() {
			continue
		}
		for h := range want {
			if want[h] && string(s.an.term(i)) == hintStems[h] {
				want[h] = false
			}
		}
	}
	s.steps.titled = want[hintTitle]
	from := s.an.n()
	for h, w := range hintWords {
		if want[h] {
			s.an.add(w)
		}
	}
	s.steps.hint = [2]int32{int32(from), int32(s.an.n())}
}

// titledNouns are the things a request names by their title, which a tool must find
// before acting on them ("the 'Archive' page", "the '3.2' milestone").
var titledNouns = []string{"page", "pages", "database", "databases", "doc", "document", "wiki",
	"milestone", "board", "project", "issue", "ticket", "epic"}

// namesTitled reports whether a quoted (not backquoted) span of query, as addLiterals
// found them, comes right after or right before one of titledNouns: the query names a
// thing by its title, and the tool that finds things (by title) serves a step it
// implies.
func (st *stepScratch) namesTitled(query string) bool {
	for _, l := range st.litAt[:st.nlit] {
		open, end := int(l[0])-1, int(l[1])
		if query[open] == '`' {
			continue
		}
		if s, e := nextWord(query, end+1); s < len(query) && inFold(query[s:e], titledNouns) && onlySpaces(query[end+1:s]) {
			if !indefiniteBefore(query, open) {
				return true
			}
		}
		a, b := wordBefore(query, open)
		if a < b && b < open && inFold(query[a:b], titledNouns) && !indefiniteBefore(query, a) {
			return true
		}
	}
	return false
}

// titleCapsMin is the least number of capitalized words, none the first of a sentence,
// right before one of titledNouns that name a thing by its title without quotes ("our
// Bug Tracker database").
const titleCapsMin = 2

// namesTitledCaps reports whether query names a thing by its title unquoted: at least
// titleCapsMin words starting with a capital letter, separated by single spaces, right
// before one of titledNouns, the first word of a sentence not counted ("Meeting Notes
// database" counts two; "Roadmap page" at the start of a query none).
func namesTitledCaps(query string) bool {
	for s, e := nextWord(query, 0); s < len(query); s, e = nextWord(query, e) {
		if !inFold(query[s:e], titledNouns) {
			continue
		}
		n, b := 0, s // b: where the run of capitalized words before the noun starts
		for b >= 2 && query[b-1] == ' ' && wordByte(query[b-2]) {
			a := b - 1
			for a > 0 && wordByte(query[a-1]) {
				a--
			}
			if c := query[a]; c < 'A' || c > 'Z' || a > 0 && !isSpace(query[a-1]) {
				break
			}
			n, b = n+1, a
		}
		if n > 0 && sentenceStart(query, b) {
			n--
		}
		if n >= titleCapsMin && !indefiniteBefore(query, b) {
			return true
		}
	}
	return false
}

// indefiniteBefore reports whether the words right before byte at of query, up to
// three of them and within the sentence, hold an indefinite article (articles: "a",
// "an", "another", "new") before any definite one (definites): "create a wiki page
// 'Postmortem'" names a thing it makes, which needs no finding; "the 'Archive' page"
// one that exists.
func indefiniteBefore(query string, at int) bool {
	for n := 0; n < 3; n++ {
		s, e := wordBefore(query, at)
		if s == e {
			return false // punctuation or the start of the query
		}
		w := query[s:e]
		switch {
		case inFold(w, articles):
			return true
		case inFold(w, definites):
			return false
		}
		at = s
	}
	return false
}

// wordBefore returns the bounds of the word of text ending at byte at, or at the spaces
// right before it, as nextWord reads words; start == end if there is none.
func wordBefore(text string, at int) (start, end int) {
	end = at
	for end > 0 && isSpace(text[end-1]) {
		end--
	}
	start = end
	for start > 0 && wordByte(text[start-1]) {
		start--
	}
	return start, end
}

// definites are the words that, before a noun, name a thing that exists.
var definites = []string{"the", "our", "my", "your", "their", "its", "his", "her", "this", "that", "existing"}

// sentenceStart reports whether the word at byte i of query starts a sentence: the
// query's first word, or one after ". ", "! " or "? ".
func sentenceStart(query string, i int) bool {
	for i > 0 && isSpace(query[i-1]) {
		i--
	}
	return i == 0 || strings.IndexByte(".!?", query[i-1]) >= 0
}

// onlySpaces reports whether text is white space alone.
func onlySpaces(text string) bool {
	for i := 0; i < len(text); i++ {
		if !isSpace(text[i]) {
			return false
		}
	}
	return true
}

// namesURL reports whether query holds a URL: a scheme (://) or a host starting www.
func namesURL(query string) bool {
	return strings.Contains(query, "://") || strings.Contains(query, "www.")
}

// codeKind reports whether query holds code in backquotes (a span holding brackets,
// =, |, ; or ->), and whether that code is JavaScript (jsMarks).
func codeKind(query string) (code, js bool) {
	for i := 0; i < len(query); i++ {
		if query[i] != '`' {
			continue
		}
		end := strings.IndexByte(query[i+1:], '`')
		if end < 0 {
			break
		}
		span := query[i+1 : i+1+end]
		i += end + 1
		if strings.ContainsAny(span, "(){}=|;<>[]") || strings.Contains(span, "->") {
			code = true
		}
		for _, m := range jsMarks {
			if strings.Contains(span, m) {
				code, js = true, true
			}
		}
	}
	return code, js
}

// jsMarks are strings of JavaScript code that other code hardly holds.
var jsMarks = [...]string{"=>", "document.", "window.", "querySelector", "console.", "getElementBy", "function"}

// namesFile reports whether query holds a file name: a word, trailing punctuation
// aside, ending in a dot and an extension of 1 to 5 letters and digits holding a
// letter, after a letter, digit, _ or -, and not a URL, an e-mail address or a domain.
func namesFile(query string) bool {
	for start := 0; start < len(query); {
		end := start
		for end < len(query) && !isSpace(query[end]) {
			end++
		}
		w := query[start:end]
		start = end + 1
		for len(w) > 0 && strings.IndexByte(".,;:!?)'\"`", w[len(w)-1]) >= 0 {
			w = w[:len(w)-1]
		}
		dot := strings.LastIndexByte(w, '.')
		if dot < 1 || len(w)-dot-1 < 1 || len(w)-dot-1 > 5 || strings.Contains(w, "://") || strings.IndexByte(w, '@') >= 0 {
			continue
		}
		ext, letter := w[dot+1:], false
		for i := 0; i < len(ext); i++ {
			c := ext[i] | 0x20
			if 'a' <= c && c <= 'z' {
				letter = true
			} else if ext[i] < '0' || ext[i] > '9' {
				letter = false
				break
			}
		}
		if !letter {
			continue
		}
		switch strings.ToLower(ext) {
		case "com", "org", "net", "io", "dev", "app", "ai":
			continue
		}
		if c := w[dot-1]; c == '_' || c == '-' || ('0' <= c && c <= '9') || ('a' <= c|0x20 && c|0x20 <= 'z') {
			return true
		}
	}
	return false
}
