package rank

import (
	"maps"
	"slices"
)

// stem folds English inflections of a lower-case word in place and returns the stem: plural
// and third-person -s, -ies, -ing, -ed, a final silent e, and a doubled final consonant, so
// that "listing", "lists" and "listed" all become "list", "branches" becomes "branch",
// "creating" and "creates" become "creat", and "running" becomes "run". It is deliberately
// light: it only has to map forms of one word to one key, the same way for the query and
// the documents, and never to merge unrelated words. Words that are not plain ASCII letters
// are returned unchanged.
func stem(w []byte) []byte {
	if _, ok := stemExceptions[string(w)]; ok {
		return w
	}
	return stemRules(w)
}

// stemRules is stem for a word known not to be one of stemExceptions.
func stemRules(w []byte) []byte {
	for _, b := range w {
		if b < 'a' || b > 'z' {
			return w
		}
	}
	if len(w) < 4 {
		return w
	}
	n := len(w)
	switch {
	case hasSuffix(w, "ies") && n > 4:
		w = append(w[:n-3], 'y')
	case hasSuffix(w, "ied") && n > 4:
		w = append(w[:n-3], 'y')
	case w[n-1] == 's' && !hasSuffix(w, "ss") && !hasSuffix(w, "us") && !hasSuffix(w, "is"):
		w = w[:n-1]
	case hasSuffix(w, "ing") && n-3 >= 3 && hasVowel(w[:n-3]):
		w = w[:n-3]
		w = undouble(w)
	case hasSuffix(w, "ed") && !hasSuffix(w, "eed") && n-2 >= 3 && hasVowel(w[:n-2]):
		w = w[:n-2]
		w = undouble(w)
	}
	if hasSuffix(w, "isation") {
		w[len(w)-6] = 'z' // organisation -> organization
	}
	if len(w) >= 4 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

// undouble turns a final doubled consonant other than l, s and z into a single one.
func undouble(w []byte) []byte {
	n := len(w)
	if n >= 4 && w[n-1] == w[n-2] && !isVowel(w[n-1]) {
		switch w[n-1] {
		case 'l', 's', 'z':
			return w
		}
		return w[:n-1]
	}
	return w
}

func hasSuffix(w []byte, s string) bool {
	return len(w) >= len(s) && string(w[len(w)-len(s):]) == s
}

func isVowel(b byte) bool {
	switch b {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

func hasVowel(w []byte) bool {
	for _, b := range w {
		if isVowel(b) {
			return true
		}
	}
	return false
}

// stemExceptions are words the suffix rules would mangle into another word's stem.
var stemExceptions = map[string]struct{}{
	"alias": {}, "atlas": {}, "bias": {}, "canvas": {}, "news": {}, "series": {},
	"species": {}, "kubernetes": {}, "windows": {}, "https": {}, "postgres": {},
}

// stopWords are folded words that carry no meaning for finding a tool: articles,
// pronouns, auxiliaries, prepositions and the politeness of a request ("please", "want").
// They are dropped from documents and queries alike, so a query made only of them
// matches nothing (SPEC DISC-6).
var stopWords = set(
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

// abbreviations maps an abbreviation common in tool names to the words it stands for
// (already stemmed), applied to documents and queries alike: "PR" finds pull requests.
var abbreviations = map[string][][]byte{}

// synonyms maps a folded query word to words tool catalogs use for the same thing
// (already stemmed): "make" also looks for "create", "folder" for "directory". They are
// added to queries only, at synonymWeight of the word's own weight.
var synonyms = map[string][][]byte{}

// phrasal is a verb and its particle, as written in a query.
type phrasal struct{ verb, particle string }

// phrasalVerbs maps a phrasal verb of a query to the tool verb it means, as a synonym of
// its particle: "set up a repository" asks for create_repository.
var phrasalVerbs = map[phrasal][]byte{
	{"set", "up"}:     stem([]byte("create")),
	{"spin", "up"}:    stem([]byte("create")),
	{"tear", "down"}:  stem([]byte("delete")),
	{"get", "rid"}:    stem([]byte("delete")),
	{"kick", "off"}:   stem([]byte("run")),
	{"shut", "down"}:  stem([]byte("stop")),
	{"clean", "up"}:   stem([]byte("delete")),
	{"sign", "off"}:   stem([]byte("approve")),
	{"roll", "back"}:  stem([]byte("revert")),
	{"turn", "off"}:   stem([]byte("disable")),
	{"switch", "off"}: stem([]byte("disable")),
}

// synonymWeight is the query weight of a synonym relative to the word it came from.
const synonymWeight = 0.5

func init() {
	abbrevs := map[string][]string{
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
	}
	// Sorted keys: the order of a word's expansions and synonyms decides the order in
	// which their scores add up, which must be the same in every process.
	for _, abbr := range slices.Sorted(maps.Keys(abbrevs)) {
		full := abbrevs[abbr]
		for _, f := range full {
			abbreviations[abbr] = append(abbreviations[abbr], stem([]byte(f)))
		}
	}
	canonical := map[string][]string{
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
	}
	for _, canon := range slices.Sorted(maps.Keys(canonical)) {
		words := canonical[canon]
		c := stem([]byte(canon))
		for _, w := range words {
			synonyms[w] = append(synonyms[w], c)
		}
	}
}

// A lexEntry says what the analyzer does with one folded word before stemming.
type lexEntry struct {
	stop   bool     // one of stopWords
	keep   bool     // one of stemExceptions
	abbrev [][]byte // its expansion in abbreviations, nil if none
}

// lexicon holds stopWords, stemExceptions and abbreviations in one open-addressing hash
// table, so that a word of a document is looked up once, by a hash of a few of its bytes:
// lexSlots[h] is 1 + the index of a key in lexKeys and lexEntries, 0 when empty.
// maxLexicon is the length of the longest key, past which no word needs looking up.
var (
	lexSlots   [lexSize]uint16
	lexKeys    []string
	lexEntries []lexEntry
	maxLexicon int
)

// lexSize is the number of slots of lexicon: a power of two, over four times its keys.
const lexSize = 1 << 10

// lexHash hashes w, of at least two bytes, from its length and first, second and last bytes.
func lexHash(w []byte) uint32 {
	h := uint32(len(w))*0x9e3779b1 ^ uint32(w[0])*0x85ebca6b ^ uint32(w[1])*0x27d4eb2f ^ uint32(w[len(w)-1])*0xc2b2ae35
	return (h ^ h>>15) & (lexSize - 1)
}

// lookupLexicon returns the entry of w, of at least two bytes, and whether w has one.
func lookupLexicon(w []byte) (lexEntry, bool) {
	if len(w) > maxLexicon {
		return lexEntry{}, false
	}
	for i := lexHash(w); ; i = (i + 1) & (lexSize - 1) {
		k := lexSlots[i]
		if k == 0 {
			return lexEntry{}, false
		}
		if lexKeys[k-1] == string(w) {
			return lexEntries[k-1], true
		}
	}
}

func init() {
	update := func(w string, f func(*lexEntry)) {
		if len(w) < 2 {
			return // emitWord drops words of one letter before looking them up
		}
		i := lexHash([]byte(w))
		for ; lexSlots[i] != 0; i = (i + 1) & (lexSize - 1) {
			if k := lexSlots[i]; lexKeys[k-1] == w {
				f(&lexEntries[k-1])
				return
			}
		}
		lexKeys = append(lexKeys, w)
		lexEntries = append(lexEntries, lexEntry{})
		f(&lexEntries[len(lexEntries)-1])
		lexSlots[i] = uint16(len(lexKeys))
		maxLexicon = max(maxLexicon, len(w))
		if 4*len(lexKeys) > lexSize {
			panic("rank: lexicon over a quarter full")
		}
	}
	for w := range stopWords {
		update(w, func(e *lexEntry) { e.stop = true })
	}
	for w := range stemExceptions {
		update(w, func(e *lexEntry) { e.keep = true })
	}
	for w, exp := range abbreviations {
		update(w, func(e *lexEntry) { e.abbrev = exp })
	}
}

func set(words ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}
