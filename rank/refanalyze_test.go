package rank

// The analysis as it was before the build path was made faster (commit ffa1030),
// kept verbatim, renamed, as the reference that TestAnalysisMatchesReference compares
// the current analyzer and index against.

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// An refAnalyzer turns text into index terms: it folds compatibility forms and accents
// (NFKD, combining marks dropped), splits words at separators and at camelCase
// boundaries, folds case (full Unicode case folding), drops stop words, expands common
// refAbbreviations, stems, and cuts CJK runs into overlapping character bigrams. Asked to,
// it also emits words as written beside their stems, and pairs of consecutive words.
//
// An refAnalyzer holds scratch buffers; it is not safe for concurrent use. Terms are written
// to out, one after another, term i ending at ends[i].
type refAnalyzer struct {
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
	// parent[i] is, for a word as written or a pair, the index of the refStem that every
	// doc holding term i holds too; -1 for other terms.
	parent []int32
	caser  cases.Caser
	iter   norm.Iter

	synonyms bool    // add the refSynonyms of query words (for queries, not documents)
	pairs    bool    // add pairs of consecutive words as written
	prev     []byte  // the previous word as written, for pairs; empty after a break
	prevAt   int32   // the index of the previous word's refStem term
	surface  bool    // keep words as written beside their stems
	off      feature // features turned off, to measure what each one brings
}

func refNewAnalyzer(off feature) *refAnalyzer {
	return &refAnalyzer{caser: cases.Fold(), off: off}
}

// reset forgets the terms produced so far.
func (a *refAnalyzer) reset() {
	a.out = a.out[:0]
	a.ends = a.ends[:0]
	a.kind = a.kind[:0]
	a.parent = a.parent[:0]
}

// n reports the number of terms produced since the last reset.
func (a *refAnalyzer) n() int { return len(a.ends) }

// term returns term i. The slice aliases the refAnalyzer's buffer.
func (a *refAnalyzer) term(i int) []byte {
	start := int32(0)
	if i > 0 {
		start = a.ends[i-1]
	}
	return a.out[start:a.ends[i]]
}

// rune classes seen by the word splitter.
const (
	refClsSep = iota
	refClsLower
	refClsUpper
	refClsDigit
	refClsCJK
	refClsMark
)

func refClassify(r rune) int {
	if r < utf8.RuneSelf {
		switch {
		case 'a' <= r && r <= 'z':
			return refClsLower
		case 'A' <= r && r <= 'Z':
			return refClsUpper
		case '0' <= r && r <= '9':
			return refClsDigit
		}
		return refClsSep
	}
	switch {
	case unicode.Is(unicode.Mn, r):
		return refClsMark
	case refIsCJK(r):
		return refClsCJK
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return refClsUpper
	case unicode.IsLetter(r):
		return refClsLower
	case unicode.IsDigit(r):
		return refClsDigit
	}
	return refClsSep
}

// refIsCJK reports whether r belongs to a script written without spaces between words.
func refIsCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r == 'ー' // katakana prolonged sound mark is Common script
}

// refLowerAt reports whether the rune starting at src[i] is a lower-case letter.
func refLowerAt(src []byte, i int) bool {
	if i >= len(src) {
		return false
	}
	r, _ := utf8.DecodeRune(src[i:])
	return refClassify(r) == refClsLower
}

func refIsApostrophe(r rune) bool { return r == '\'' || r == '’' }

// add analyzes text and appends its terms.
func (a *refAnalyzer) add(text string) {
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
		// An Iter kept in the refAnalyzer decomposes without allocating.
		a.src = a.src[:0]
		a.iter.InitString(norm.NFKD, text)
		for !a.iter.Done() {
			a.src = append(a.src, a.iter.Next()...)
		}
	}
	src := a.src
	a.prev = a.prev[:0]
	a.word = a.word[:0]
	a.whole = a.whole[:0]
	a.parts = 0
	a.cjk = a.cjk[:0]
	prev := refClsSep // class of the previous letter or digit in the current word
	for i := 0; i < len(src); {
		r, size := rune(src[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(src[i:])
		}
		c := refClassify(r)
		switch c {
		case refClsMark:
			if a.off&featAccents == 0 {
				i += size
				continue // accents vanish without splitting the word
			}
			c = refClsLower
		case refClsCJK:
			a.flushWord()
			a.flushWhole()
			prev = refClsSep
			a.cjk = append(a.cjk, r)
			i += size
			continue
		}
		a.flushCJK()
		if c == refClsSep && a.off&featSplit != 0 && r != ' ' && r != '\n' && r != '\t' {
			c = refClsLower // only white space separates words
		}
		if c == refClsSep {
			// An apostrophe inside a word joins it ("user's" -> "users").
			if refIsApostrophe(r) && len(a.word) > 0 && i+size < len(src) {
				if nr, _ := utf8.DecodeRune(src[i+size:]); refClassify(nr) == refClsLower {
					i += size
					continue
				}
			}
			a.flushWord()
			a.flushWhole()
			prev = refClsSep
			i += size
			continue
		}
		if len(a.word) > 0 && c == refClsUpper && a.off&featSplit == 0 {
			switch prev {
			case refClsLower, refClsDigit:
				a.flushWord() // listBranches, getV2Config
				a.parts++
			case refClsUpper:
				// HTTPServer splits before the S, but IDs and VMs stay whole.
				j := i + size
				if j < len(src) {
					nr, ns := utf8.DecodeRune(src[j:])
					if refClassify(nr) == refClsLower && !(nr == 's' && !refLowerAt(src, j+ns)) {
						a.flushWord()
						a.parts++
					}
				}
			}
		}
		a.word = utf8.AppendRune(a.word, r)
		a.whole = utf8.AppendRune(a.whole, r)
		prev = c
		i += size
	}
	a.flushWord()
	a.flushWhole()
	a.flushCJK()
}

// flushWhole emits a word that camelCase split into two parts as one more term, joined,
// so that "JavaScript" is found by "javascript" as well as by "java script". Words of more
// parts (getPullRequestReviews) are not joined: nobody types them whole.
func (a *refAnalyzer) flushWhole() {
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
func (a *refAnalyzer) flushCJK() {
	run := a.cjk
	if len(run) == 0 {
		return
	}
	if len(run) == 1 || a.off&featCJK != 0 {
		for _, r := range run {
			a.out = utf8.AppendRune(a.out, r)
		}
		a.ends = append(a.ends, int32(len(a.out)))
		a.kind = append(a.kind, termWord)
		a.parent = append(a.parent, -1)
		a.cjk = a.cjk[:0]
		return
	}
	for i := 0; i+1 < len(run); i++ {
		a.out = utf8.AppendRune(a.out, run[i])
		a.out = utf8.AppendRune(a.out, run[i+1])
		a.ends = append(a.ends, int32(len(a.out)))
		a.kind = append(a.kind, termWord)
		a.parent = append(a.parent, -1)
	}
	a.cjk = a.cjk[:0]
}

// flushWord folds the pending word and emits its terms.
func (a *refAnalyzer) flushWord() {
	if len(a.word) > 0 {
		a.foldAndEmit(a.word)
	}
	a.word = a.word[:0]
}

// foldAndEmit folds the case of w, in place when it is ASCII, and emits its terms.
func (a *refAnalyzer) foldAndEmit(w []byte) {
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
		a.fold, err = refAppendTransform(a.fold, a.caser, w)
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

// emitWord applies stop words, refAbbreviations and stemming to a folded word.
func (a *refAnalyzer) emitWord(w []byte) {
	if utf8.RuneCount(w) < 2 {
		return
	}
	if _, stop := refStopWords[string(w)]; stop && a.off&featStop == 0 {
		return
	}
	if exp, ok := refAbbreviations[string(w)]; ok && a.off&featAbbrev == 0 {
		for _, e := range exp {
			a.emit(e, termWord)
		}
		a.prev = a.prev[:0] // an abbreviation is not written as its words: no pair
		return
	}
	if a.synonyms && a.off&featSynonyms == 0 {
		if syn, ok := refSynonyms[string(w)]; ok {
			for _, e := range syn {
				a.emit(e, termSynonym)
			}
		}
		if len(a.prev) > 0 && a.pairs {
			if syn, ok := refPhrasalVerbs[refPhrasal{string(a.prev), string(w)}]; ok {
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
	// The word as written is kept after its refStem, so that "advisories" prefers
	// list_global_security_advisories to get_global_security_advisory. A doc holding
	// the word as written always holds its refStem.
	a.surf = append(a.surf[:0], w...)
	w = refStem(w)
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

// addWhole appends one more term: the word terms produced so far (refSynonyms left out),
// joined by spaces after a 0x01 byte that no other term holds. For a name it is the key
// of the whole name; for a query, the query that names a tool exactly
// ("list_group_wiki_pages", "list group wiki pages") finds it by this term.
func (a *refAnalyzer) addWhole() {
	n := a.n()
	start := len(a.out)
	a.out = append(a.out, wholeMark)
	for i := range n {
		if a.kind[i] != termWord {
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

// emitPair emits the previous word and w, as written (folded, not stemmed), as one term
// after a pairMark, and makes w the previous word; stemAt is the index of w's refStem. Stop
// words were dropped before: "pull requests waiting for my review" pairs "waiting" with
// "review".
func (a *refAnalyzer) emitPair(w []byte, stemAt int32) {
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

func (a *refAnalyzer) emit(term []byte, kind termKind) {
	a.out = append(a.out, term...)
	a.ends = append(a.ends, int32(len(a.out)))
	a.kind = append(a.kind, kind)
	a.parent = append(a.parent, -1)
}

// words reports the number of terms of kind termWord.
func (a *refAnalyzer) words() int {
	n := 0
	for _, k := range a.kind {
		if k == termWord {
			n++
		}
	}
	return n
}

// refAppendTransform appends t applied to src to dst without allocating when dst has room.
func refAppendTransform(dst []byte, t transform.Transformer, src []byte) ([]byte, error) {
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

// refStem folds English inflections of a lower-case word in place and returns the refStem: plural
// and third-person -s, -ies, -ing, -ed, a final silent e, and a doubled final consonant, so
// that "listing", "lists" and "listed" all become "list", "branches" becomes "branch",
// "creating" and "creates" become "creat", and "running" becomes "run". It is deliberately
// light: it only has to map forms of one word to one key, the same way for the query and
// the documents, and never to merge unrelated words. Words that are not plain ASCII letters
// are returned unchanged.
func refStem(w []byte) []byte {
	for _, b := range w {
		if b < 'a' || b > 'z' {
			return w
		}
	}
	if len(w) < 4 {
		return w
	}
	if _, ok := refStemExceptions[string(w)]; ok {
		return w
	}
	n := len(w)
	switch {
	case refHasSuffix(w, "ies") && n > 4:
		w = append(w[:n-3], 'y')
	case refHasSuffix(w, "ied") && n > 4:
		w = append(w[:n-3], 'y')
	case w[n-1] == 's' && !refHasSuffix(w, "ss") && !refHasSuffix(w, "us") && !refHasSuffix(w, "is"):
		w = w[:n-1]
	case refHasSuffix(w, "ing") && n-3 >= 3 && refHasVowel(w[:n-3]):
		w = w[:n-3]
		w = refUndouble(w)
	case refHasSuffix(w, "ed") && !refHasSuffix(w, "eed") && n-2 >= 3 && refHasVowel(w[:n-2]):
		w = w[:n-2]
		w = refUndouble(w)
	}
	if refHasSuffix(w, "isation") {
		w[len(w)-6] = 'z' // organisation -> organization
	}
	if len(w) >= 4 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

// refUndouble turns a final doubled consonant other than l, s and z into a single one.
func refUndouble(w []byte) []byte {
	n := len(w)
	if n >= 4 && w[n-1] == w[n-2] && !refIsVowel(w[n-1]) {
		switch w[n-1] {
		case 'l', 's', 'z':
			return w
		}
		return w[:n-1]
	}
	return w
}

func refHasSuffix(w []byte, s string) bool {
	return len(w) >= len(s) && string(w[len(w)-len(s):]) == s
}

func refIsVowel(b byte) bool {
	switch b {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

func refHasVowel(w []byte) bool {
	for _, b := range w {
		if refIsVowel(b) {
			return true
		}
	}
	return false
}

// refStemExceptions are words the suffix rules would mangle into another word's refStem.
var refStemExceptions = map[string]struct{}{
	"alias": {}, "atlas": {}, "bias": {}, "canvas": {}, "news": {}, "series": {},
	"species": {}, "kubernetes": {}, "windows": {}, "https": {}, "postgres": {},
}

// refStopWords are folded words that carry no meaning for finding a tool: articles,
// pronouns, auxiliaries, prepositions and the politeness of a request ("please", "want").
// They are dropped from documents and queries alike, so a query made only of them
// matches nothing (SPEC DISC-6).
var refStopWords = refSet(
	"a", "about", "above", "after", "again", "also", "am", "an", "and", "any", "are",
	"as", "at", "be", "been", "before", "being", "below", "between", "both", "but", "by",
	"can", "could", "did", "do", "does", "doing", "don", "during", "each", "either",
	"etc", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here",
	"hers", "herself", "him", "himself", "his", "how", "however", "i", "if", "im", "in",
	"into", "is", "isn", "it", "its", "itself", "ive", "just", "let", "lets", "like", "may",
	"me", "might", "more", "most", "much", "must", "my", "myself", "no", "nor", "not", "of",
	"on", "once", "only", "or", "other", "others", "our", "ours", "ourselves", "out",
	"over", "own", "please", "same", "shall", "she", "should", "so", "some", "such", "than",
	"that", "thats", "the", "their", "theirs", "them", "themselves", "then", "there", "these",
	"they", "this", "those", "through", "to", "too", "under", "until", "upon", "us",
	"very", "via", "want", "wants", "was", "we", "were", "what", "whats", "when", "where",
	"which", "while", "who", "whom", "whose", "why", "will", "with", "within", "without",
	"would", "you", "your", "youre", "yours", "yourself", "yourselves", "id", "ll", "re",
	"ve", "eg", "ie", "need", "needs", "help", "something", "anything", "thing", "things",
	"hi", "hello", "hey", "thanks", "thank", "really", "know", "tell", "give", "able",
	"looking", "wondering", "interested", "sure", "well", "now", "yes", "return", "returns",
	"returned", "use", "uses", "used", "using", "onto", "another",
)

// refAbbreviations maps an abbreviation common in tool names to the words it stands for
// (already stemmed), applied to documents and queries alike: "PR" finds pull requests.
var refAbbreviations = map[string][][]byte{}

// refSynonyms maps a folded query word to words tool catalogs use for the same thing
// (already stemmed): "make" also looks for "create", "folder" for "directory". They are
// added to queries only, at synonymWeight of the word's own weight.
var refSynonyms = map[string][][]byte{}

// refPhrasal is a verb and its particle, as written in a query.
type refPhrasal struct{ verb, particle string }

// refPhrasalVerbs maps a phrasal verb of a query to the tool verb it means, as a synonym of
// its particle: "set up a repository" asks for create_repository.
var refPhrasalVerbs = map[refPhrasal][]byte{
	{"set", "up"}:    refStem([]byte("create")),
	{"spin", "up"}:   refStem([]byte("create")),
	{"tear", "down"}: refStem([]byte("delete")),
	{"get", "rid"}:   refStem([]byte("delete")),
	{"kick", "off"}:  refStem([]byte("run")),
	{"shut", "down"}: refStem([]byte("stop")),
	{"clean", "up"}:  refStem([]byte("delete")),
}

func init() {
	for abbr, full := range map[string][]string{
		"pr": {"pull", "request"}, "prs": {"pull", "request"},
		"mr": {"merge", "request"}, "mrs": {"merge", "request"},
		"vm": {"virtual", "machine"}, "vms": {"virtual", "machine"},
		"repo": {"repository"}, "repos": {"repository"},
		"db": {"database"}, "dbs": {"database"},
		"k8s": {"kubernetes"},
		"dir": {"directory"}, "dirs": {"directory"},
		"env": {"environment"}, "envs": {"environment"},
		"msg": {"message"}, "msgs": {"message"},
		"org": {"organization"}, "orgs": {"organization"},
		"info": {"information"},
		"img":  {"image"}, "imgs": {"image"},
		"pkg": {"package"}, "pkgs": {"package"},
		"doc": {"document"}, "docs": {"document"},
		"app": {"application"}, "apps": {"application"},
		"config": {"configuration"}, "configs": {"configuration"},
		"auth": {"authentication"},
		"gh":   {"github"},
		"rg":   {"resource", "group"},
	} {
		for _, f := range full {
			refAbbreviations[abbr] = append(refAbbreviations[abbr], refStem([]byte(f)))
		}
	}
	for canon, words := range map[string][]string{
		"create":    {"make", "add", "new", "generate", "setup", "provision", "spin"},
		"delete":    {"remove", "erase", "drop", "destroy", "wipe", "purge", "discard", "trash"},
		"get":       {"fetch", "retrieve", "read", "show", "view", "display", "see", "check", "grab", "inspect", "describe"},
		"list":      {"show", "view", "display", "enumerate", "browse"},
		"update":    {"modify", "edit", "change", "set", "rename", "bump", "adjust", "tweak", "alter"},
		"set":       {"bump", "adjust"},
		"search":    {"find", "lookup", "look", "locate"},
		"directory": {"folder", "folders"},
		"run":       {"start", "launch", "execute", "trigger", "rerun", "invoke"},
		"user":      {"person", "people", "member", "members", "account"},
		"navigate":  {"visit", "goto", "browse"},
		"select":    {"pick", "choose"},
		"press":     {"hit"},
		"close":     {"dismiss", "shut"},
		"approve":   {"accept"},
		"stop":      {"halt", "kill", "terminate"},
	} {
		c := refStem([]byte(canon))
		for _, w := range words {
			refSynonyms[w] = append(refSynonyms[w], c)
		}
	}
}

func refSet(words ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}
