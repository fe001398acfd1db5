package discovery

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"reflect"

	"github.com/deferredtools/deferredtools/validate"
)

// reuse is what NewCatalog may take from CatalogOptions.Previous.
type reuse struct {
	prev       *Catalog
	validators bool // prev's tools were compiled by the same Compiler
	rank       bool // prev's index reads parameter text as this one does
	next       int  // the input of prev after the one the last text found was

	// Made at the first text not found at next: bySample is the last tool of prev whose
	// text has this sample, chain[j] the tool before j with j's sample (-1 if none),
	// input[j] the input of prev tool j was.
	bySample map[uint64]int32
	chain    []int32
	input    []int32
}

// maxCandidates bounds the tools of Previous a text is compared with, so that texts
// sharing a sample cost a bounded number of comparisons each.
const maxCandidates = 8

// newReuse returns what the catalog NewCatalog builds with o may take from o.Previous.
func newReuse(o *CatalogOptions) reuse {
	prev := o.Previous
	if prev == nil || len(prev.tools) == 0 {
		return reuse{}
	}
	return reuse{
		prev:       prev,
		validators: sameCompiler(prev.compiler, o.Compiler),
		rank:       prev.paramText == !o.IgnoreParamText,
	}
}

// index makes bySample, chain and input.
func (r *reuse) index() {
	tools := r.prev.tools
	r.bySample = make(map[uint64]int32, len(tools))
	r.chain = make([]int32, len(tools))
	r.input = make([]int32, len(tools))
	for i, j := range r.prev.inputs {
		r.input[j] = int32(i)
	}
	for j := range tools {
		s := tools[j].sample
		r.chain[j] = -1
		if k, ok := r.bySample[s]; ok {
			r.chain[j] = k
		}
		r.bySample[s] = int32(j)
	}
}

// A probe is a text looked for in Previous, with its sample and textKey once computed.
type probe struct {
	text            []byte
	sample          uint64
	key             textKey
	sampled, hashed bool
}

// sampleOf returns the sample of p's text, computing it once.
func (p *probe) sampleOf() uint64 {
	if !p.sampled {
		p.sample, p.sampled = sampleOf(p.text), true
	}
	return p.sample
}

// keyOf returns the textKey of p's text, computing it once.
func (p *probe) keyOf() textKey {
	if !p.hashed {
		p.key, p.hashed = keyOf(p.text), true
	}
	return p.key
}

// builtFrom reports whether tool t of Previous was built from p's text: compared byte
// for byte with its canonical form when that was its text, else by textKey.
func (p *probe) builtFrom(t *tool) bool {
	if t.rawCanonical {
		return bytes.Equal(p.text, t.canonical)
	}
	return p.keyOf() == t.key
}

// find returns the tool of Previous built from p's text, or -1: first the tool given
// after the last one found (versions mostly keep their order), then those whose text
// had the same sample.
func (r *reuse) find(p *probe) int {
	if r.prev == nil {
		return -1
	}
	if r.next < len(r.prev.inputs) {
		j := r.prev.inputs[r.next]
		if p.builtFrom(&r.prev.tools[j]) {
			r.next++
			return int(j)
		}
	}
	if r.bySample == nil {
		r.index()
	}
	j, ok := r.bySample[p.sampleOf()]
	for n := 0; ok && j >= 0 && n < maxCandidates; n++ {
		if p.builtFrom(&r.prev.tools[j]) {
			r.next = int(r.input[j]) + 1
			return int(j)
		}
		j = r.chain[j]
	}
	return -1
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

// A textKey identifies the JSON text of a tool that was not in canonical form: two
// 64-bit hashes of it, each keyed by a seed drawn at random when the process starts.
// Texts differing in any byte share a key with probability 2^-128, and no one outside
// the process can find two that do (the seeds are never shown). A text in canonical form
// needs none: it is compared byte for byte with the canonical form Previous kept.
type textKey [2]uint64

var (
	textSeeds  = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
	sampleSeed = maphash.MakeSeed()
)

// keyOf returns the textKey of text.
func keyOf(text []byte) textKey {
	return textKey{maphash.Bytes(textSeeds[0], text), maphash.Bytes(textSeeds[1], text)}
}

// sampleEnds is how many bytes of each end of a text its sample hashes.
const sampleEnds = 64

// sampleOf returns a hash of the length of text and of its first and last sampleEnds
// bytes (of all of it when it is short): where to look for text in Previous, touching
// three cache lines of it where hashing it whole reads all (canonical JSON ends with
// the tool's name, other JSON often starts with it). Texts sharing a sample are told
// apart by comparing them.
func sampleOf(text []byte) uint64 {
	if len(text) <= 2*sampleEnds {
		return maphash.Bytes(sampleSeed, text)
	}
	var buf [8 + 2*sampleEnds]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(len(text)))
	copy(buf[8:], text[:sampleEnds])
	copy(buf[8+sampleEnds:], text[len(text)-sampleEnds:])
	return maphash.Bytes(sampleSeed, buf[:])
}
