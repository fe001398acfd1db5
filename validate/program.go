package validate

// Type bits of the "type" keyword.
const (
	tNull uint8 = 1 << iota
	tBoolean
	tInteger
	tNumber
	tString
	tArray
	tObject
)

var typeNames = map[string]uint8{
	"null": tNull, "boolean": tBoolean, "integer": tInteger, "number": tNumber,
	"string": tString, "array": tArray, "object": tObject,
}

// bound is one of minimum, maximum, exclusiveMinimum, exclusiveMaximum.
type bound struct {
	keyword string
	lit     []byte // the bound's literal, copied from the schema text; num reads it
	num     decimal
	// ok reports whether cmpDecimal(instance, num) satisfies the bound.
	ok func(c int) bool
}

var boundOK = map[string]func(int) bool{
	"minimum":          func(c int) bool { return c >= 0 },
	"maximum":          func(c int) bool { return c <= 0 },
	"exclusiveMinimum": func(c int) bool { return c > 0 },
	"exclusiveMaximum": func(c int) bool { return c < 0 },
}

// schema is one compiled subschema. It is immutable once compiled, and identical
// subschemas without enum are one shared node, in a program and across programs
// (see intern). Keywords a schema rarely has live behind the obj and x pointers, so
// that the common leaf (a type and a bound or two) is small.
type schema struct {
	never bool  // the false schema
	types uint8 // 0 when there is no type keyword
	// kinds holds the type bits of the kinds that keywords of s constrain besides
	// type and enum: tString for minLength, maxLength or pattern, tNumber for
	// bounds, tArray for minItems or maxItems. Validation looks no further for
	// values of other kinds.
	kinds  uint8
	unique bool
	enum   int32 // the enum array's token in the program's enum tape; 0 when absent

	obj   *objectKeywords // nil without properties, required or additionalProperties
	items *schema         // nil when absent
	x     *moreKeywords   // nil without string, number or item-count keywords, anyOf and oneOf
}

// objectKeywords are the properties, required and additionalProperties of a schema.
type objectKeywords struct {
	entries    []entry // sorted by name length, then name, when more than sortedEntries
	names      string  // the entries' names, end to end
	required   []int32 // entries indexes, in the order of the required keyword
	additional *schema // nil when absent
}

// sortedEntries is the most entries lookup scans in order; more are sorted by name
// length and name, and searched by bisection.
const sortedEntries = 8

// entry is a property name the schema declares in properties or required: names[off:end].
type entry struct {
	off, end uint32
	sub      *schema // nil when the name appears only in required
}

// moreKeywords are the keywords of a schema other than type, enum, the object
// keywords and items.
type moreKeywords struct {
	minLen, maxLen     int64 // -1 when absent
	pattern            *compiledPattern
	bounds             []bound
	minItems, maxItems int64 // -1 when absent
	anyOf, oneOf       []*schema
	enumH              []hpair // large enums: (hash, token) of each value, sorted by hash (see indexEnum)
}

// name answers the name of entry e.
func (o *objectKeywords) name(e int32) string {
	en := &o.entries[e]
	return o.names[en.off:en.end]
}

// lookup answers the entries index of the member name, or -1.
func (o *objectKeywords) lookup(name []byte) int32 {
	es := o.entries
	if len(es) > sortedEntries {
		// Bisection in (length, bytes) order: most steps compare lengths only.
		n := uint32(len(name))
		lo, hi := 0, len(es)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			e := &es[m]
			if l := e.end - e.off; l < n || l == n && o.names[e.off:e.end] < string(name) {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo < len(es) && o.names[es[lo].off:es[lo].end] == string(name) {
			return int32(lo)
		}
		return -1
	}
	for i := range es {
		if o.names[es[i].off:es[i].end] == string(name) {
			return int32(i)
		}
	}
	return -1
}

// program is a compiled Validator. It keeps the compiled schema tree and, of the
// schema text, only its enum values: descriptions and other annotations are dropped.
type program struct {
	root  *schema
	enums *tape   // the enum values of every enum keyword; nil when there is none
	nodes int     // schema nodes, charged against MaxNodes
	lim   *Limits // the compiler's
}
