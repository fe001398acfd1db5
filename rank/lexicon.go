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
	"ticket": {"issue"}, "bug": {"issue"},
	"clone": {"fork", "copy"}, "duplicate": {"copy"},
	"contributor": {"collaborator", "member"}, "maintainer": {"collaborator", "member"},
	"teammate":  {"team", "member", "reviewer"},
	"colleague": {"member", "reviewer"}, "coworker": {"member", "reviewer"},
	"lgtm": {"approve"}, "signoff": {"approve"},
	"retract": {"unapprove", "remove"}, "revoke": {"unapprove", "remove"},
	"changes": {"diff"}, "changeset": {"diff", "commit"}, "patch": {"diff"},
	"differ": {"diff", "compare"}, "difference": {"diff", "compare"},
	"authored": {"blame"},
	"cve":      {"vulnerability", "advisory"}, "weakness": {"vulnerability"}, "vulnerable": {"vulnerability", "alert"},
	"leak": {"secret"}, "credential": {"secret", "password"}, "token": {"secret"},
	"library": {"dependency", "package", "dependabot"}, "dependencies": {"dependabot"},
	"build": {"pipeline", "job", "workflow"},
	"ci":    {"pipeline", "workflow", "job"}, "cd": {"pipeline", "deployment"},
	"compiled": {"artifact"}, "binary": {"artifact"},
	"assign": {"assignee"}, "belong": {"member"},
	"abort": {"cancel", "stop"}, "freeze": {"protect", "lock"},
	"lint": {"validate"}, "syntax": {"lint", "validate"},
	"vars": {"variable"}, "envvars": {"variable"},
	// Files and memory.
	"hierarchy": {"tree"}, "structure": {"tree"}, "nested": {"tree"},
	"metadata": {"info"}, "modified": {"info"}, "timestamp": {"info"},
	"permitted": {"allowed"}, "accessible": {"allowed"},
	"remember": {"observation", "entity"}, "memorize": {"observation", "entity"},
	"fact": {"observation"}, "forget": {"delete"},
	"total": {"sum"}, "calculate": {"sum"}, "plus": {"sum"},
	"zip": {"gzip", "compress"}, "shrink": {"compress", "gzip"},
	"reason": {"thinking"},
	// Browsers.
	"popup": {"dialog"}, "modal": {"dialog"}, "prompt": {"dialog"},
	"printable": {"pdf"}, "print": {"pdf"},
	"script":  {"evaluate", "code"},
	"offline": {"network"}, "internet": {"network"}, "connection": {"network"},
	"endpoint": {"route"},
	"mock":     {"route"}, "stub": {"route"}, "fake": {"route"}, "intercept": {"route"},
	"dropdown": {"select", "option"}, "combobox": {"select", "option"},
	"scroll": {"wheel", "mouse"}, "devtools": {"console"},
	"screen": {"screenshot"},
	"https":  {"navigate"}, "http": {"navigate"},
	"reload": {"navigate"}, "refresh": {"navigate"}, "url": {"navigate"},
	"login": {"fill", "form", "type"},
	// Notion.
	"paragraph": {"block"}, "bullet": {"block"},
	"row":    {"data", "source", "query"},
	"filter": {"query"}, "relocate": {"move"},
	"database": {"data", "source"},
	// Cloud.
	"instance": {"vm"}, "linux": {"vm"},
	"billing": {"pricing", "cost"}, "spend": {"pricing", "cost"}, "cost": {"pricing"},
	"slow": {"performance"}, "slowness": {"performance"},
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
	"store":   {"create", "write", "save"}, "put": {"write", "update"},
	"withdraw": {"unapprove", "remove"}, "activity": {"event"}, "happened": {"event"},
	"big": {"size"}, "large": {"size"}, "defined": {"code", "definition"},
	// Operations: a request's verb, and the verbs and nouns with which APIs name that
	// operation (an issue is closed by updating its state; a reply is a comment or a
	// note of a thread; a to-do list is a block of a page).
	"close": {"update", "state"}, "reopen": {"update", "state"},
	"approve": {"review"}, "compare": {"diff"}, "rename": {"move"},
	"save": {"write"}, "replace": {"edit", "update"}, "resize": {"update", "scale"},
	"record": {"start"}, "export": {"download", "save"}, "switch": {"select", "update"},
	"stop": {"cancel"}, "cancel": {"stop"}, "pause": {"stop"}, "resume": {"run", "start"},
	"restart": {"retry", "run"}, "undo": {"revert"}, "rollback": {"revert"},
	"squash": {"merge"}, "publish": {"release"}, "unassign": {"assignee"},
	"append": {"add", "insert"}, "insert": {"add", "append"},
	"upload": {"push", "file"},
	"reply":  {"comment", "note", "thread"},
	"react":  {"emoji"}, "upvote": {"emoji", "reaction"}, "thumbs": {"emoji", "reaction"},
	"subscribe": {"watch", "notification"}, "unsubscribe": {"watch", "notification"},
	"todo": {"block"}, "checklist": {"block"}, "checkbox": {"block"},
	"column": {"property"}, "field": {"property"},
	// Seventh pass: words of tune2's requests the catalogs name otherwise.
	// hit and wipe are also synonyms of press and delete (stem.go), which so weigh
	// synonymWeight + relatedWeight: without it playwright.task fell 0.726 -> 0.694.
	"halt": {"cancel"}, "wipe": {"clear", "delete", "purge"},
	"hit": {"click", "press"}, "tap": {"click"},
	"tooltip": {"hover"}, "pointer": {"mouse", "hover"}, "cursor": {"mouse", "hover"},
	"sketch": {"annotate", "draw"}, "draw": {"annotate"},
	"picture": {"image"}, "photo": {"image"},
	"outline": {"tree"}, "different": {"diff", "compare"},
	"child": {"sub"}, "children": {"sub"}, "subtask": {"sub"},
	"blocker": {"dependency"}, "prerequisite": {"dependency"},
	"ping":   {"notification"},
	"outage": {"health"}, "downtime": {"health"},
	"hook":      {"webhook"},
	"overwrite": {"replace", "update", "write"}, "settings": {"config", "configuration"},
	"integration": {"bot"}, "related": {"link"}, "stick": {"append", "add"},
	// Eighth pass: "bump the version" (a synonym of set and update too, stem.go).
	"bump": {"update", "increase"},
}

// writtenRelated maps a folded query word, as written, to the catalog words it stands
// for, where its stem is another word's ("texting" and "text", "heading" and "head"):
// for that word it replaces related's words for the stem ("closed", an issue's state,
// and not "close", which updates it).
var writtenRelated = map[string][]string{
	"texting": {"sms"}, "heading": {"block"}, "headings": {"block"},
	"closed": {"state"},
}

func init() {
	// related holds writtenRelated's words under their keys as written, not stemmed.
	add := func(m map[string][]string, asWritten bool) {
		for _, w := range slices.Sorted(maps.Keys(m)) {
			key := string(stem([]byte(w)))
			if asWritten {
				key = w
			}
			for _, t := range m[w] {
				st := stem([]byte(t))
				if string(st) == key || slices.ContainsFunc(related[key], func(b []byte) bool { return string(b) == string(st) }) {
					continue
				}
				related[key] = append(related[key], st)
			}
		}
	}
	add(wordnetRelated, false)
	add(curatedRelated, false)
	add(foreignRelated, false)
	add(writtenRelated, true)
}

// relatedOf returns the related words of term i of an, a word: those of the word as
// written when writtenRelated holds it (the word as written follows its stem, with the
// stem as parent), else those of its stem.
func relatedOf(an *analyzer, i int) [][]byte {
	for j := i + 1; j < an.n() && j <= i+2; j++ {
		if an.kind[j] == termSurface && an.parent[j] == int32(i) {
			if w := an.term(j); writtenRelated[string(w)] != nil {
				return related[string(w)]
			}
			break
		}
	}
	return related[string(an.term(i))]
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
	// spaced, when set, makes the object a word it reports within reach words as
	// separated by spaces: a file name (namesFile: docs/README.md), a handle (isHandle:
	// @maria), a URL (namesURL: https://example.com/login).
	spaced func(string) bool
	// keep leaves the verb its weight.
	keep bool
	// joined makes the object the next word, joined to the verb by a hyphen alone: a
	// compound the analyzer splits into stop words ("to-do").
	joined bool
	// synonym makes the words to weigh synonymWeight, not phraseWeight: a phrasal verb
	// of stem.go adds them at that weight too ("turn off" -> disable), so that the
	// two together weigh what one phrase does ("turn on" -> enable).
	synonym bool
	// pair makes each word of to and the object a pair of words whose tools a task's
	// step gains (phrasePairs, rerank.go): "open an issue" names create_issue.
	pair bool
}

// articles are the words that, right after a verb, mark it as one.
var articles = []string{"a", "an", "another", "new"}

// curatedPhrases are the verb phrases of requests to software tools whose verb means
// another thing in the catalogs' own text ("open" a file or a tab, "pop" a stash).
var curatedPhrases = []phraseRule{
	{verbs: []string{"open", "opens", "opened", "opening", "file", "filed", "raise", "raised", "log", "logged", "report", "reported"},
		article: true, reach: 3,
		objects: []string{"issue", "issues", "ticket", "tickets", "bug", "bugs", "pr", "pull", "mr", "merge", "incident", "problem"},
		to:      []string{"create"}, pair: true},
	{verbs: []string{"ask", "asks", "asked"}, reach: 6, objects: []string{"review", "reviews", "approve", "approval"},
		to: []string{"reviewer"}},
	{verbs: []string{"pop", "pops", "popped", "popping"}, reach: 1, objects: []string{"up"}, to: []string{"dialog"}},
	{verbs: []string{"at", "to", "onto"}, reach: 2, objects: []string{"end", "bottom"}, to: []string{"append"}},
	{verbs: []string{"turn", "turns", "turned"}, reach: 5, objects: []string{"into"}, to: []string{"convert"}},
	{verbs: []string{"who"}, reach: 2, objects: []string{"in", "belongs", "belong"}, to: []string{"member", "user"}},
	{verbs: []string{"who"}, reach: 3, objects: []string{"access", "allowed", "permission", "permissions", "rights"},
		to: []string{"member", "user", "collaborator", "role", "permission"}},
	{verbs: []string{"read", "reads", "open", "opens", "view", "show", "cat", "print", "load", "inspect", "fetch", "get"}, reach: 3,
		spaced: namesFile, keep: true, to: []string{"content"}},
	{verbs: []string{"assign", "assigns", "assigned", "reassign"}, reach: 4, spaced: isHandle, to: []string{"assignee"}},
	{verbs: []string{"add", "adds", "added", "adding"}, reach: 4,
		objects: []string{"property", "properties", "column", "columns", "field", "fields"}, to: []string{"update"}},
	{verbs: []string{"leave", "leaves", "left", "leaving", "drop", "post"}, article: true, reach: 2,
		objects: []string{"comment", "comments", "note", "notes", "reply", "review", "feedback", "reaction"}, to: []string{"create"},
		pair: true},
	{verbs: []string{"go", "goes", "going", "look", "looks", "looking"}, reach: 1, objects: []string{"through", "over"}, to: []string{"list"}},
	{verbs: []string{"turn", "turns", "turned", "switch", "switches", "switched"}, reach: 1, objects: []string{"on"}, to: []string{"enable"}},
	{verbs: []string{"turn", "turns", "turned", "switch", "switches", "switched"}, reach: 1, objects: []string{"off"}, to: []string{"disable"},
		synonym: true},
	{verbs: []string{"log", "logs", "logged", "sign", "signs", "signed"}, reach: 1, objects: []string{"in", "into"}, to: []string{"login"}},
	{verbs: []string{"try", "tries", "tried"}, reach: 5, objects: []string{"again"}, to: []string{"retry"}},
	{verbs: []string{"cut", "cuts"}, reach: 3, objects: []string{"branch", "release"}, to: []string{"create", "branch"}},
	{verbs: []string{"to"}, joined: true, objects: []string{"do", "dos"}, to: []string{"todo", "block"}, keep: true},
	{verbs: []string{"who"}, reach: 1, objects: []string{"am"}, to: []string{"whoami", "self", "current"}},
	{verbs: []string{"add", "adds"}, reach: 1, objects: []string{"up"}, to: []string{"sum"}},
	{verbs: []string{"command", "commands"}, reach: 1, objects: []string{"line"}, to: []string{"cli"}, keep: true},
	{verbs: []string{"check", "checks", "confirm", "confirms", "ensure", "assert"}, reach: 6,
		objects: []string{"appears", "appear", "appeared", "shows", "showing", "shown", "visible", "displayed", "displays"},
		to:      []string{"verify", "visible"}, keep: true},
	{verbs: []string{"go", "goes", "going", "visit", "visits", "open", "opens", "load", "loads", "browse", "head"},
		reach: 2, spaced: namesURL, to: []string{"navigate"}},
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
	for from < len(text) && !wordByte(text[from]) {
		from++
	}
	end = from
	for end < len(text) && wordByte(text[end]) {
		end++
	}
	return from, end
}

// wordByte reports whether c belongs to a word as nextWord reads it: an ASCII letter or
// digit, or a byte of another rune.
func wordByte(c byte) bool {
	return c >= 0x80 || 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9'
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

// phraseMatchesAt calls f with the byte offset in query and the stem of the verb, and
// the stems of the words to, of each rule of curatedPhrases that query holds, once per
// occurrence.
func phraseMatchesAt(query string, f func(at int, verb string, to [][]byte)) {
	phraseScan(query, func(at, ri int, verb, _ string) { f(at, verb, phraseTo[ri]) })
}

// phraseWeights is phraseMatchesAt, also passing f the weight of the words to:
// phraseWeight, or synonymWeight for a rule with synonym set.
func phraseWeights(query string, f func(at int, verb string, to [][]byte, w float64)) {
	phraseScan(query, func(at, ri int, verb, _ string) {
		w := float64(phraseWeight)
		if curatedPhrases[ri].synonym {
			w = synonymWeight
		}
		f(at, verb, phraseTo[ri], w)
	})
}

// phrasePairs calls f with the byte offset of the verb and the term of each pair of
// words, a word of to and the object as written ("open an issue": create issue), of
// each rule of curatedPhrases with pair set that query holds: the words of the name of
// the tool the phrase asks for, as the index holds the pairs of a name's words.
func phrasePairs(query string, f func(at int, pair []byte)) {
	var buf [40]byte
	phraseScan(query, func(at, ri int, _, obj string) {
		r := &curatedPhrases[ri]
		if !r.pair || obj == "" {
			return
		}
		for _, t := range r.to {
			if 2+len(t)+len(obj) > len(buf) {
				continue
			}
			b := append(buf[:0], pairMark)
			b = append(b, t...)
			b = append(b, ' ')
			for i := 0; i < len(obj); i++ {
				c := obj[i]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				b = append(b, c)
			}
			if n := len(b); b[n-1] == 's' && inFold(obj[:len(obj)-1], r.objects) {
				b = b[:n-1] // "issues": the name says create_issue
			}
			f(at, b)
		}
	})
}

// phraseScan calls f with the byte offset of the verb, the index of the rule, the stem
// of the verb ("" with keep) and the object as written ("" for a rule of spaced or
// joined words) of each rule of curatedPhrases that query holds, once per occurrence.
func phraseScan(query string, f func(at, ri int, verb, obj string)) {
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
			verb := pv.stem
			if r.keep {
				verb = ""
			}
			if r.spaced != nil {
				if spacedWordWithin(query, end, r.reach, r.spaced) {
					f(start, ri, verb, "")
				}
				continue
			}
			if r.joined {
				if end+1 < len(query) && query[end] == '-' {
					if s, e := nextWord(query, end+1); s == end+1 && inFold(query[s:e], r.objects) {
						f(start, ri, verb, "")
					}
				}
				continue
			}
			s, e := nextWord(query, end)
			if r.article {
				if s == len(query) || !inFold(query[s:e], articles) {
					continue
				}
				s, e = nextWord(query, e)
			}
			for n := 0; n < r.reach && s < len(query); n++ {
				if inFold(query[s:e], r.objects) {
					f(start, ri, verb, query[s:e])
					break
				}
				s, e = nextWord(query, e)
			}
		}
	}
}

// spacedWordWithin reports whether one of the first reach words after from, as
// separated by spaces, is one that is reports (phraseRule.spaced).
func spacedWordWithin(query string, from, reach int, is func(string) bool) bool {
	for n := 0; n < reach && from < len(query); n++ {
		for from < len(query) && isSpace(query[from]) {
			from++
		}
		end := from
		for end < len(query) && !isSpace(query[end]) {
			end++
		}
		if end > from && is(query[from:end]) {
			return true
		}
		from = end
	}
	return false
}

// isHandle reports whether w is a handle: @ and a letter or digit (@maria).
func isHandle(w string) bool { return len(w) >= 2 && w[0] == '@' && wordByte(w[1]) }

// stepVerbs are the operation verbs that lead a step of a task ("list the tables",
// "edit the one about naming"), and stepFillers the words that may come before them
// ("then", "also", and a polite request's "could you", "can you"). A clause of a long
// query that starts with one is a step whose best tool gains stepLead (rerank.go); the
// requests of MetaTool that start "I want..." do not.
var stepVerbs, stepFillers = map[string]bool{}, map[string]bool{}

func init() {
	for _, w := range []string{
		"list", "get", "show", "read", "find", "search", "look", "fetch", "view", "open", "check",
		"create", "make", "add", "write", "post", "put", "insert", "append", "upload", "push",
		"commit", "tag", "fork", "clone", "copy", "move", "rename", "delete", "remove", "clear",
		"drop", "cancel", "stop", "close", "archive", "update", "edit", "change", "set",
		"replace", "modify", "fix", "patch", "assign", "label", "merge", "approve", "publish",
		"submit", "request", "ask", "review", "comment", "reply", "leave", "send", "notify",
		"tell", "run", "start", "trigger", "execute", "deploy", "restart", "kick", "record",
		"take", "capture", "save", "download", "export", "import", "load", "compress",
		"navigate", "click", "type", "fill", "press", "hover", "drag", "resize", "scroll",
		"select", "switch", "reload", "wait", "return", "echo", "count", "query", "protect",
		"unprotect", "enable", "disable", "star", "invite", "summarize", "think", "break",
		"revise", "collect", "rotate", "retrieve", "mark", "resolve", "lock", "unlock", "turn",
		"convert", "grab", "pull", "sample", "lookup", "see", "confirm", "verify", "compare",
		"link", "schedule", "scale", "give", "sort", "filter", "log", "emulate", "hit", "share",
	} {
		stepVerbs[w] = true
	}
	for _, w := range []string{"then", "and", "also", "first", "finally", "next", "please", "now",
		"lastly", "afterwards", "just", "so", "after", "that", "could", "can", "would", "will", "you"} {
		stepFillers[w] = true
	}
}

// verbLed reports whether clause's first word, stepFillers aside, is one of stepVerbs.
func verbLed(clause string) bool {
	var buf [16]byte
	_, w := leadWord(clause, buf[:0])
	return w != nil && stepVerbs[string(w)]
}

// leadWord returns the byte offset in clause of its first word that is no stepFillers,
// and that word with ASCII letters in lower case, in buf's room (nil when it is longer,
// or when clause has no such word: then the offset is -1).
func leadWord(clause string, buf []byte) (int, []byte) {
	for s, e := nextWord(clause, 0); s < len(clause); s, e = nextWord(clause, e) {
		w := clause[s:e]
		if len(w) > cap(buf) {
			return s, nil
		}
		low := buf[:len(w)]
		for i := 0; i < len(w); i++ {
			c := w[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			low[i] = c
		}
		if !stepFillers[string(low)] {
			return s, low
		}
	}
	return -1, nil
}

// queryStop holds the stems of words a request uses for its own grammar, pronouns and
// adverbs ("edit the one about naming", "read it instead"), which tool text rarely
// holds, so that they would weigh as a query's rarest words. They are dropped from
// queries only (query.go, rerank.go), and only from a query holding another word
// ("together" alone asks for Together AI's tools); the index keeps them. ("already" and "whether"
// are not among them: "check whether it was already filed" asks for a search.)
var queryStop = map[string]bool{}

func init() {
	for _, w := range []string{
		"one", "ones", "instead", "still", "together", "yet", "even", "ever", "anyway",
		"actually", "currently", "maybe", "perhaps", "rather", "quite", "almost", "though",
		"although", "because", "therefore", "otherwise", "else", "someone", "somebody",
		"everything", "everyone", "whatever", "whichever",
	} {
		queryStop[string(stem([]byte(w)))] = true
	}
}

// stepPronouns are the words by which a step of a task names what an earlier clause
// named ("delete the variable, then create a new one"; "find the files and read
// them"): a verb-led step holding one gains stepAnaphora of a hit's score on the clause
// before it (rerank.go).
var stepPronouns = []string{"it", "them", "one", "ones", "this", "these", "those"}

// holdsPronoun reports whether clause holds one of stepPronouns, in any case.
func holdsPronoun(clause string) bool {
	for s, e := nextWord(clause, 0); s < len(clause); s, e = nextWord(clause, e) {
		if inFold(clause[s:e], stepPronouns) {
			return true
		}
	}
	return false
}
