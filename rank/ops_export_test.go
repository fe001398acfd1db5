package rank

// Test hooks for the operations gate studied in TUNING.md ("Ninth pass: operations per
// object"), measured and not adopted: which operations a tool's name says it does
// (nameOps), which of them a request's lead verb asks for (verbOps), and the gate that
// answers a query empty when no tool named for its object does what its verb asks
// (OpsGate). Commit ffc79ac holds it as a gate of Search, with Index.ops.

// The operation classes, one bit each.
const (
	opCreate = 1 << iota
	opRead
	opUpdate
	opDelete
	opRun
	opStop
	opMerge
	opMove
	opCopy
	opSend
	opUpload
	opDownload
	opShare
	opLock
	opRestore
	opArchive
	opApprove
	opDismiss
	opScale
	opPublish

	opAll = 1<<iota - 1
)

// toolOpWords are the words of a tool's name that say which operations it does: those
// of its verb, and a generic "write" or "manage" doing several.
var toolOpWords = map[string]uint32{
	"create": opCreate, "add": opCreate, "new": opCreate, "post": opCreate, "insert": opCreate,
	"append": opCreate, "make": opCreate, "generate": opCreate, "register": opCreate,
	"get": opRead, "list": opRead, "read": opRead, "retrieve": opRead, "fetch": opRead,
	"show": opRead, "view": opRead, "describe": opRead, "search": opRead, "find": opRead,
	"query": opRead | opRun, "details": opRead, "simulate": opRun, "lookup": opRead,
	"update": opUpdate, "edit": opUpdate, "set": opUpdate, "patch": opUpdate, "modify": opUpdate,
	"change": opUpdate, "replace": opUpdate, "rename": opUpdate | opMove, "toggle": opUpdate,
	"mark": opUpdate, "assign": opUpdate | opShare, "reprioritize": opUpdate,
	"delete": opDelete, "remove": opDelete, "clear": opDelete, "drop": opDelete,
	"destroy": opDelete, "purge": opDelete, "unset": opDelete,
	"run": opRun, "trigger": opRun, "execute": opRun, "start": opRun, "play": opRun,
	"retry": opRun, "launch": opRun, "restart": opRun | opStop,
	"stop": opStop, "cancel": opStop, "abort": opStop, "kill": opStop, "terminate": opStop,
	"close": opStop, "merge": opMerge, "move": opMove, "transfer": opMove,
	"copy": opCopy, "fork": opCopy, "clone": opCopy, "duplicate": opCopy,
	"send": opSend, "notify": opSend, "publish": opPublish | opSend,
	"upload": opUpload, "push": opUpload, "import": opUpload,
	"download": opDownload, "export": opDownload, "save": opDownload,
	"share": opShare, "invite": opShare, "grant": opShare,
	"lock": opLock, "protect": opLock, "unlock": opLock, "unprotect": opLock,
	"restore": opRestore, "archive": opArchive, "approve": opApprove, "unapprove": opApprove,
	"dismiss": opDismiss, "scale": opScale,
	"write": opCreate | opUpdate | opDelete, "manage": opAll,
}

// verbOps are the lead verbs of a request whose operation is one of a few classes, and
// the classes of tools that may do it: "close the issue" is an update, "start a
// discussion" creates one or runs something.
var verbOps = map[string]uint32{
	"create": opCreate, "add": opCreate, "make": opCreate, "insert": opCreate, "append": opCreate,
	"generate": opCreate, "register": opCreate, "write": opCreate | opUpdate,
	"update": opUpdate, "edit": opUpdate, "change": opUpdate, "modify": opUpdate,
	"set": opUpdate, "patch": opUpdate, "fix": opUpdate, "rename": opUpdate | opMove,
	"replace": opUpdate, "adjust": opUpdate, "tag": opUpdate | opCreate, "label": opUpdate | opCreate,
	"mark": opUpdate, "assign": opUpdate | opShare, "close": opUpdate | opStop,
	"reopen": opUpdate, "resolve": opUpdate,
	"delete": opDelete, "remove": opDelete, "erase": opDelete, "drop": opDelete,
	"destroy": opDelete, "purge": opDelete, "clear": opDelete | opUpdate, "wipe": opDelete,
	"run": opRun, "trigger": opRun, "execute": opRun, "launch": opRun, "kick": opRun,
	"rerun": opRun, "retry": opRun, "play": opRun, "start": opRun | opCreate,
	"restart": opRun | opStop, "reboot": opRun | opStop,
	"stop": opStop, "cancel": opStop, "abort": opStop, "kill": opStop, "terminate": opStop,
	"halt": opStop, "deallocate": opStop, "shutdown": opStop,
	"merge": opMerge, "move": opMove, "transfer": opMove, "relocate": opMove,
	"copy": opCopy | opCreate, "duplicate": opCopy | opCreate, "clone": opCopy | opCreate,
	"fork": opCopy | opCreate,
	"send": opSend | opCreate, "notify": opSend | opCreate, "email": opSend,
	"publish": opPublish | opSend | opCreate, "release": opPublish | opCreate,
	"upload": opUpload | opCreate, "import": opUpload | opCreate,
	"download": opDownload | opRead, "export": opDownload | opRead,
	"invite": opShare, "grant": opShare, "give": opShare | opCreate | opUpdate,
	"lock": opLock, "unlock": opLock, "protect": opLock, "unprotect": opLock,
	"restore": opRestore, "revert": opRestore | opUpdate, "archive": opArchive | opUpdate,
	"approve": opApprove, "unapprove": opApprove, "dismiss": opDismiss | opUpdate | opDelete,
	"scale": opScale | opUpdate,
}

// maxOpWord is the longest word of a name nameOps looks up.
const maxOpWord = 16

// nameOps returns the operation classes of the words of name (toolOpWords), which
// split at every byte neither an ASCII letter nor a digit and at a lower-case letter
// followed by an upper-case one: "API-patch-page" and "createIssue" both name theirs.
func nameOps(name string) uint32 {
	var buf [maxOpWord]byte
	ops, n, long := uint32(0), 0, false
	flush := func() {
		if n > 0 && !long {
			ops |= toolOpWords[string(buf[:n])]
		}
		n, long = 0, false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		lower, upper, digit := 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9'
		if !lower && !upper && !digit {
			flush()
			continue
		}
		if upper && i > 0 && 'a' <= name[i-1] && name[i-1] <= 'z' {
			flush()
		}
		if upper {
			c += 'a' - 'A'
		}
		if n == maxOpWord {
			long = true
			continue
		}
		buf[n] = c
		n++
	}
	flush()
	return ops
}

// DocOps returns the operation classes of each of docs' names.
func DocOps(docs []Doc) []uint32 {
	ops := make([]uint32, len(docs))
	for i := range docs {
		ops[i] = nameOps(docs[i].Name)
	}
	return ops
}

// serves reports whether a doc of classes ops may do an operation of classes want: a
// name holding no operation word may do any.
func serves(ops, want uint32) bool { return ops == 0 || ops&want != 0 }

// OpsGate reports whether the operations gate would answer query empty where Search
// answers it: a query of at most words words (as the no-answer gate counts them) led by
// a verb of verbOps, its best hit scoring under share of its informative weight, holding
// the verb's stem in no field, and serving none of the verb's classes (ops[d]: DocOps of
// the index's docs), gets no hit when no allowed tool holding, at nameSat, a word the
// best hit holds so serves them either (a name without operation words serves all).
func (ix *Index) OpsGate(ops []uint32, query string, allowed Set, share float64, words int) bool {
	s := ix.getScratch()
	defer ix.putScratch(s)
	allowed, ok := s.prepare(ix, query, allowed)
	if !ok || len(s.gate) == 0 || len(s.gate) > words {
		return false
	}
	top, best := s.fullBest(ix, allowed)
	if top == 0 || top < int64(floorInfo*float64(s.info)) || top >= int64(share*float64(s.info)) {
		return false // empty already, or over share of the weight
	}
	var buf [16]byte
	_, word := leadWord(query, buf[:0])
	want := verbOps[string(word)]
	if want == 0 || serves(ops[best], want) {
		return false
	}
	verb := uint32(noTerm) // the verb's term: none when the analyser drops it ("give")
	if stem := verbStem(word); stem != nil {
		if id, ok := ix.terms[string(stem)]; ok {
			verb = id
		}
	}
	if verb != noTerm && ix.holds(verb, best) {
		return false
	}
	objects := false
	for _, w := range s.gate {
		if w.id == noTerm || w.id == verb || ix.lookup(w.id, best) < nameSat {
			continue
		}
		objects = true
		done := false
		ix.eachStrong(w.id, allowed, func(d uint32) bool {
			done = serves(ops[d], want)
			return !done
		})
		if done {
			return false
		}
	}
	return objects
}

// VerbOps and ToolOpWords are the tables of the gate.
var VerbOps, ToolOpWords = verbOps, toolOpWords

// NameOps returns the operation classes of a tool's name.
func NameOps(name string) uint32 { return nameOps(name) }

// LeadWord returns the query's first word that is no step filler, in lower case, as
// the gates read its verb ("" for none).
func LeadWord(query string) string {
	var buf [16]byte
	_, w := leadWord(query, buf[:0])
	return string(w)
}

// GateFigures returns what the no-answer gate reads of query over allowed: its words as
// the gate counts them, its best hit (-1 for none) and that hit's share of the query's
// informative weight, from a full evaluation.
func (ix *Index) GateFigures(query string, allowed Set) (words, best int, share float64) {
	s := ix.getScratch()
	defer ix.putScratch(s)
	allowed, ok := s.prepare(ix, query, allowed)
	if !ok {
		return 0, -1, 0
	}
	words = len(s.gate)
	top, b := s.fullBest(ix, allowed)
	if top == 0 || s.info == 0 {
		return words, -1, 0
	}
	return words, int(b), float64(top) / float64(s.info)
}

// fullBest scores the query s.prepare read over allowed without pruning and returns the
// best score and the hit holding it (ties to the earlier in ix.order, as answer does),
// leaving s.acc cleared.
func (s *scratch) fullBest(ix *Index, allowed Set) (top int64, best uint32) {
	s.order()
	for _, d := range s.score(ix, allowed, 0) {
		if v := s.acc[d]; v > top || v == top && ix.order[d] < ix.order[best] {
			top, best = v, d
		}
	}
	for _, d := range s.touched {
		s.acc[d] = 0
	}
	return top, best
}
