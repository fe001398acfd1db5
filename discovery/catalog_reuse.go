package discovery

import (
	"hash/maphash"
	"reflect"

	"github.com/deferredtools/deferredtools/validate"
)

// reuse is what NewCatalog may take from CatalogOptions.Previous.
type reuse struct {
	prev       *Catalog
	byKey      map[textKey]int // the tool of prev built from text of this key
	validators bool            // prev's tools were compiled by the same Compiler
	rank       bool            // prev's index reads parameter text as this one does
}

// newReuse returns what the catalog NewCatalog builds with o may take from o.Previous.
func newReuse(o *CatalogOptions) reuse {
	prev := o.Previous
	if prev == nil || len(prev.tools) == 0 {
		return reuse{}
	}
	r := reuse{
		prev:       prev,
		byKey:      make(map[textKey]int, len(prev.tools)),
		validators: sameCompiler(prev.compiler, o.Compiler),
		rank:       prev.paramText == !o.IgnoreParamText,
	}
	for i := range prev.tools {
		r.byKey[prev.tools[i].key] = i
	}
	return r
}

// sameCompiler reports whether a and b, Compilers as CatalogOptions give them, are the
// same: both nil (the default), or equal values of one comparable type. Values == cannot
// compare (or whose comparison would panic) are never the same.
func sameCompiler(a, b validate.Compiler) (same bool) {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta := reflect.TypeOf(a)
	if ta != reflect.TypeOf(b) || !ta.Comparable() {
		return false
	}
	defer func() {
		if recover() != nil { // an interface field holding an incomparable value
			same = false
		}
	}()
	return a == b
}

// A textKey identifies the JSON text of a tool: two 64-bit hashes of it, each keyed by a
// seed drawn at random when the process starts. Texts differing in any byte share a key
// with probability 2^-128, and no one outside the process can find two that do (the
// seeds are never shown); it hashes several times faster than SHA-256, a third of the
// cost of a catalog version that differs from the last by a few tools.
type textKey [2]uint64

var textSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// keyOf returns the textKey of text.
func keyOf(text []byte) textKey {
	return textKey{maphash.Bytes(textSeeds[0], text), maphash.Bytes(textSeeds[1], text)}
}
