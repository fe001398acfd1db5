package rank

import (
	"maps"
	"slices"
)

// relatedWeight is the query weight of a related word (see related) relative to the
// word it came from: below a synonym's, which is below the word's own.
var relatedWeight = 0.4

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
