package validate

import (
	"bytes"
	"hash/maphash"
	"runtime"
	"slices"
	"sync"
	"unsafe"
	"weak"
)

// weakTable maps keys to values that live only as long as something else uses them:
// it holds weak pointers, and an entry goes when its value is collected. It lets
// compiled schemas and patterns be shared by every program that has them, across
// compilers and catalog versions, without keeping any alive.
type weakTable[K comparable, V any] struct {
	mu   sync.Mutex
	m    map[K]weak.Pointer[V]
	peak int // most entries m has held since it was made
}

// intern answers the live value under k for which same(value) holds, else stores v
// under k and answers v. When a live value under k is not the same (a hash
// collision), v is answered and not stored.
func (w *weakTable[K, V]) intern(k K, v *V, same func(*V) bool) *V {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p, ok := w.m[k]; ok {
		if old := p.Value(); old != nil {
			if same(old) {
				return old
			}
			return v
		}
	}
	if w.m == nil {
		w.m = map[K]weak.Pointer[V]{}
	}
	w.m[k] = weak.Make(v)
	w.peak = max(w.peak, len(w.m))
	runtime.AddCleanup(v, w.remove, k)
	return v
}

// lookup answers the live value under k, or nil.
func (w *weakTable[K, V]) lookup(k K) *V {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.m[k].Value()
}

// remove deletes the entry under k once its value is collected (a later value stored
// under k stays). A Go map keeps its peak capacity through deletes, so once the
// entries fall to a quarter of the peak the rest move to a new map: the table
// shrinks after a large catalog goes, at a copy per three deletes of its size.
func (w *weakTable[K, V]) remove(k K) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p, ok := w.m[k]; ok && p.Value() == nil {
		delete(w.m, k)
	}
	if w.peak >= 1024 && len(w.m) <= w.peak/4 {
		m := make(map[K]weak.Pointer[V], len(w.m))
		for k, p := range w.m {
			m[k] = p
		}
		w.m, w.peak = m, len(m)
	}
}

var (
	schemas  weakTable[uint64, schema]
	patterns weakTable[string, compiledPattern]
)

// intern answers the live compiled schema identical to s (same keywords, same
// subschema nodes), or s itself, now shared. s must have no enum: enum values live in
// their program's tape.
func intern(s *schema) *schema {
	return schemas.intern(s.digest(), s, func(old *schema) bool { return sameSchema(old, s) })
}

// internPattern answers the compiled form of the ECMA-262 pattern src, shared with
// every schema that has the same pattern, and false when it is unsupported.
func internPattern(src string) (*compiledPattern, bool) {
	if cp := patterns.lookup(src); cp != nil {
		return cp, true
	}
	cp, ok := compilePattern(src)
	if !ok {
		return nil, false
	}
	return patterns.intern(src, &cp, func(*compiledPattern) bool { return true }), true
}

var digestSeed = maphash.MakeSeed()

// digest hashes what sameSchema compares; subschemas by their node's address, which
// stays fixed while the node lives (and s keeps its subschemas alive).
func (s *schema) digest() uint64 {
	var h maphash.Hash
	h.SetSeed(digestSeed)
	var buf [8]byte
	num := func(v uint64) {
		for k := range buf {
			buf[k] = byte(v >> (8 * k))
		}
		h.Write(buf[:])
	}
	ptr := func(p unsafe.Pointer) { num(uint64(uintptr(p))) }
	num(uint64(s.types) | uint64(s.kinds)<<8 | uint64(b2u(s.never))<<16 | uint64(b2u(s.unique))<<17)
	ptr(unsafe.Pointer(s.items))
	if o := s.obj; o != nil {
		num(uint64(len(o.entries)))
		h.WriteString(o.names)
		for _, e := range o.entries {
			num(uint64(e.off) | uint64(e.end)<<32)
			ptr(unsafe.Pointer(e.sub))
		}
		num(uint64(len(o.required)))
		for _, r := range o.required {
			num(uint64(r))
		}
		ptr(unsafe.Pointer(o.additional))
	}
	if x := s.x; x != nil {
		num(uint64(x.minLen))
		num(uint64(x.maxLen))
		num(uint64(x.minItems))
		num(uint64(x.maxItems))
		ptr(unsafe.Pointer(x.pattern))
		for _, b := range x.bounds {
			h.WriteString(b.keyword)
			h.Write(b.lit)
		}
		for _, subs := range [2][]*schema{x.anyOf, x.oneOf} {
			num(uint64(len(subs)))
			for _, sub := range subs {
				ptr(unsafe.Pointer(sub))
			}
		}
	}
	return h.Sum64()
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// sameSchema reports whether a and b are the same compiled schema: equal keywords and
// the same subschema nodes.
func sameSchema(a, b *schema) bool {
	if a.never != b.never || a.types != b.types || a.kinds != b.kinds || a.unique != b.unique ||
		a.enum != b.enum || a.items != b.items || (a.obj == nil) != (b.obj == nil) || (a.x == nil) != (b.x == nil) {
		return false
	}
	if a.obj != nil {
		ao, bo := a.obj, b.obj
		if ao.names != bo.names || ao.additional != bo.additional ||
			!slices.Equal(ao.entries, bo.entries) || !slices.Equal(ao.required, bo.required) {
			return false
		}
	}
	if a.x != nil {
		ax, bx := a.x, b.x
		if ax.minLen != bx.minLen || ax.maxLen != bx.maxLen || ax.minItems != bx.minItems ||
			ax.maxItems != bx.maxItems || ax.pattern != bx.pattern ||
			!slices.Equal(ax.anyOf, bx.anyOf) || !slices.Equal(ax.oneOf, bx.oneOf) ||
			!slices.EqualFunc(ax.bounds, bx.bounds, func(p, q bound) bool {
				return p.keyword == q.keyword && bytes.Equal(p.lit, q.lit)
			}) {
			return false
		}
	}
	return true
}
