package rank

// This file holds the operation classes of the no-answer gate (answer.go, opsObject):
// which operations a tool's name says it does, and which of them a request's lead verb
// asks for.

// An Index keeps, for each doc, the classes of the operation words of its name
// (Index.ops: 4 bytes per tool; nameOps), 0 when its name holds none.

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

// docOps returns the operation classes of each of docs' names.
func docOps(docs []Doc) []uint32 {
	ops := make([]uint32, len(docs))
	for i := range docs {
		ops[i] = nameOps(docs[i].Name)
	}
	return ops
}

// updateOps returns the operation classes of docs, for Update: those of old for a doc
// that is doc from[i] of the last version, its name's for the others.
func updateOps(old []uint32, docs []Doc, from []int) []uint32 {
	ops := make([]uint32, len(docs))
	for i := range docs {
		if f := from[i]; f >= 0 && f < len(old) {
			ops[i] = old[f]
		} else {
			ops[i] = nameOps(docs[i].Name)
		}
	}
	return ops
}

// serves reports whether a doc of classes ops may do an operation of classes want: a
// name holding no operation word may do any.
func serves(ops, want uint32) bool { return ops == 0 || ops&want != 0 }
