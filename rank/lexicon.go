package rank

import (
	"maps"
	"slices"
)

// relatedWeight is the query weight of a related word (see related) relative to the
// word it came from: below a synonym's, which is below the word's own.
var relatedWeight = 0.4

// phraseWeight is the query weight of the words a verb phrase stands for (see
// curatedPhrases), as sure as a word of the query; phraseDemote is what the phrase's verb
// loses of its own weight, since the verb alone means something else, as a phrasal
// verb's does (stem.go).
const phraseWeight, phraseDemote = 1, 1 - synonymWeight

// related maps the stem of a query word to the stems of the words of tool catalogs it is
// related to: wordnetRelated (from WordNet), curatedRelated and foreignRelated. A related
// word is one more query term at relatedWeight.
var related = map[string][][]byte{}

// curatedRelated maps a folded query word to catalog words it stands for in requests to
// software tools, which WordNet lacks or puts under another sense.
var curatedRelated = map[string][]string{
	// Source control and review.
	"bookmark": {"star"}, "favorite": {"star"}, "favourite": {"star"},
	"ticket": {"issue"}, "bug": {"issue"}, "bugs": {"issue"},
	"clone": {"fork", "copy"}, "duplicate": {"copy"},
	"contributor": {"collaborator", "member"}, "contributors": {"collaborator", "member"},
	"maintainer": {"collaborator", "member"}, "maintainers": {"collaborator", "member"},
	"teammate": {"team", "member", "reviewer"}, "teammates": {"team", "member", "reviewer"},
	"colleague": {"member", "reviewer"}, "coworker": {"member", "reviewer"},
	"lgtm": {"approve"}, "signoff": {"approve"},
	"retract": {"unapprove", "remove"}, "revoke": {"unapprove", "remove"},
	"changes": {"diff"}, "changeset": {"diff", "commit"}, "patch": {"diff"},
	"differ": {"diff", "compare"}, "differs": {"diff", "compare"}, "difference": {"diff", "compare"},
	"authored": {"blame", "author"},
	"cve":      {"vulnerability", "advisory"}, "cves": {"vulnerability", "advisory"},
	"weakness": {"vulnerability"}, "weaknesses": {"vulnerability"}, "vulnerable": {"vulnerability", "alert"},
	"leaked": {"secret"}, "leak": {"secret"}, "credential": {"secret", "password"},
	"credentials": {"secret", "password"}, "token": {"secret"}, "tokens": {"secret"},
	"library": {"dependency", "package"}, "libraries": {"dependency", "package", "dependabot"},
	"dependencies": {"dependency", "dependabot"},
	"build":        {"pipeline", "job", "workflow"}, "builds": {"pipeline", "job", "workflow"},
	"ci": {"pipeline", "workflow", "job"}, "cd": {"pipeline", "deployment"},
	"compiled": {"artifact"}, "binaries": {"artifact"}, "binary": {"artifact"},
	"assign": {"assignee"}, "belong": {"member"}, "belongs": {"member"},
	"abort": {"cancel", "stop"}, "freeze": {"protect", "lock"},
	"lint": {"validate"}, "syntax": {"lint", "validate"},
	"vars": {"variable"}, "envvars": {"variable"},
	// Files and memory.
	"hierarchy": {"tree"}, "structure": {"tree"}, "nested": {"tree"},
	"metadata": {"info"}, "modified": {"info", "modify"}, "timestamp": {"info"},
	"permitted": {"allowed"}, "accessible": {"allowed"},
	"remember": {"observation", "entity"}, "memorize": {"observation", "entity"},
	"fact": {"observation"}, "facts": {"observation"}, "forget": {"delete"},
	"total": {"sum"}, "calculate": {"sum"}, "plus": {"sum"},
	"zip": {"gzip", "compress"}, "shrink": {"compress", "gzip"},
	"reason": {"thinking"}, "reasoning": {"thinking"},
	// Browsers.
	"popup": {"dialog"}, "modal": {"dialog"}, "prompt": {"dialog"},
	"printable": {"pdf"}, "print": {"pdf"},
	"script":  {"evaluate", "code"},
	"offline": {"network"}, "internet": {"network"}, "connection": {"network"},
	"endpoint": {"route"}, "endpoints": {"route"},
	"mock": {"route"}, "stub": {"route"}, "fake": {"route"}, "intercept": {"route"},
	"dropdown": {"select", "option"}, "combobox": {"select", "option"},
	"scroll": {"wheel", "mouse"}, "devtools": {"console"},
	"screen": {"screenshot"},
	"https":  {"navigate"}, "http": {"navigate"},
	"reload": {"navigate"}, "refresh": {"navigate"}, "url": {"navigate"},
	"login": {"fill", "form", "type"}, "typing": {"type"},
	// Notion.
	"paragraph": {"block"}, "heading": {"block"}, "bullet": {"block"}, "bulleted": {"block"},
	"row": {"data", "source", "query"}, "rows": {"data", "source", "query"},
	"filter": {"query"}, "relocate": {"move"},
	"database": {"data", "source"}, "databases": {"data", "source"},
	// Cloud.
	"instance": {"vm"}, "instances": {"vm"}, "linux": {"vm"},
	"billing": {"pricing", "cost"}, "spend": {"pricing", "cost"}, "cost": {"pricing"},
	"texting": {"sms"}, "slow": {"performance"}, "slowness": {"performance"},
	"transcribe": {"speech", "recognize", "stt"}, "spoken": {"speech", "recognize", "stt"},
	"dictation": {"speech", "recognize"}, "aloud": {"speech", "synthesize", "tts"},
	"voice": {"speech", "synthesize"}, "narrate": {"speech", "synthesize", "tts"},
	"rbac": {"role", "assignment"}, "permissions": {"role", "assignment"},
	"allowlist": {"firewall", "rule"}, "whitelist": {"firewall", "rule"},
	"vcpu": {"quota", "usage"}, "cores": {"quota", "usage"}, "capacity": {"quota", "usage"},
	"limits":      {"quota", "usage"},
	"suggestions": {"recommendation", "advisor"}, "advice": {"recommendation", "advisor"},
	"improve": {"recommendation", "advisor"},
	"kql":     {"kusto", "query", "log"},
}

func init() {
	add := func(m map[string][]string) {
		for _, w := range slices.Sorted(maps.Keys(m)) {
			key := string(stem([]byte(w)))
			for _, t := range m[w] {
				st := stem([]byte(t))
				if string(st) == key || slices.ContainsFunc(related[key], func(b []byte) bool { return string(b) == string(st) }) {
					continue
				}
				related[key] = append(related[key], st)
			}
		}
	}
	add(wordnetRelated)
	add(curatedRelated)
	add(foreignRelated)
}

// A phraseRule is a verb phrase whose words share none with the tools it asks for
// ("open an issue" asks for create_issue): one of verbs, then, within reach words, one
// of objects; with article, the word right after the verb must be one of articles, so
// that the verb is one ("open an issue", not "list the open issues"). A query holding
// the phrase gains the words of to as related words (relatedWeight). Words are matched
// as written, folded to lower case.
type phraseRule struct {
	verbs   []string
	article bool
	reach   int
	objects []string
	to      []string
}

// articles are the words that, right after a verb, mark it as one.
var articles = []string{"a", "an", "another", "new"}

// curatedPhrases are the verb phrases of requests to software tools whose verb means
// another thing in the catalogs' own text ("open" a file or a tab, "pop" a stash).
var curatedPhrases = []phraseRule{
	{verbs: []string{"open", "opens", "opened", "opening", "file", "filed", "raise", "raised", "log", "logged", "report", "reported"},
		article: true, reach: 3,
		objects: []string{"issue", "issues", "ticket", "tickets", "bug", "bugs", "pr", "pull", "mr", "merge", "incident", "problem"},
		to:      []string{"create"}},
	{verbs: []string{"ask", "asks", "asked"}, reach: 6, objects: []string{"review", "reviews", "approve", "approval"},
		to: []string{"reviewer"}},
	{verbs: []string{"pop", "pops", "popped", "popping"}, reach: 1, objects: []string{"up"}, to: []string{"dialog"}},
	{verbs: []string{"at", "to"}, reach: 2, objects: []string{"end", "bottom"}, to: []string{"append"}},
	{verbs: []string{"turn", "turns", "turned"}, reach: 5, objects: []string{"into"}, to: []string{"convert"}},
	{verbs: []string{"who"}, reach: 2, objects: []string{"in", "belongs", "belong"}, to: []string{"member", "user"}},
	{verbs: []string{"who"}, reach: 3, objects: []string{"access", "allowed", "permission", "permissions", "rights"},
		to: []string{"member", "user", "collaborator", "role", "permission"}},
}

// phraseVerbs maps a verb of curatedPhrases to its stem and the indices of its rules,
// and phraseTo holds each rule's words to, stemmed.
var (
	phraseVerbs = map[string]phraseVerb{}
	phraseTo    [][][]byte
)

type phraseVerb struct {
	stem  string
	rules []int
}

func init() {
	for i, r := range curatedPhrases {
		for _, v := range r.verbs {
			pv := phraseVerbs[v]
			pv.stem = string(stem([]byte(v)))
			pv.rules = append(pv.rules, i)
			phraseVerbs[v] = pv
		}
		var to [][]byte
		for _, t := range r.to {
			to = append(to, stem([]byte(t)))
		}
		phraseTo = append(phraseTo, to)
	}
}

// nextWord returns the bounds of the first word of text at or after from (a run of
// ASCII letters and digits, or of bytes of other runes), and end = len(text) if none.
func nextWord(text string, from int) (start, end int) {
	isWord := func(c byte) bool {
		return c >= 0x80 || 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9'
	}
	for from < len(text) && !isWord(text[from]) {
		from++
	}
	end = from
	for end < len(text) && isWord(text[end]) {
		end++
	}
	return from, end
}

// inFold reports whether w, in any case, is one of words (lower case).
func inFold(w string, words []string) bool {
	for _, x := range words {
		if len(x) == len(w) && equalFoldASCII(w, x) {
			return true
		}
	}
	return false
}

// phraseMatches calls f with the stem of the verb and the stems of the words to of each
// rule of curatedPhrases that query holds, once per occurrence.
func phraseMatches(query string, f func(verb string, to [][]byte)) {
	var low [16]byte
	for start, end := nextWord(query, 0); start < len(query); start, end = nextWord(query, end) {
		w := query[start:end]
		if len(w) > len(low) {
			continue
		}
		for i := 0; i < len(w); i++ {
			c := w[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			low[i] = c
		}
		pv, ok := phraseVerbs[string(low[:len(w)])]
		if !ok {
			continue
		}
		for _, ri := range pv.rules {
			r := &curatedPhrases[ri]
			s, e := nextWord(query, end)
			if r.article {
				if s == len(query) || !inFold(query[s:e], articles) {
					continue
				}
				s, e = nextWord(query, e)
			}
			for n := 0; n < r.reach && s < len(query); n++ {
				if inFold(query[s:e], r.objects) {
					f(pv.stem, phraseTo[ri])
					break
				}
				s, e = nextWord(query, e)
			}
		}
	}
}
