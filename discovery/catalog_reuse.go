package discovery

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"reflect"

	"github.com/deferredtools/deferredtools/internal/parallel"
	"github.com/deferredtools/deferredtools/validate"
)

// reuse is what NewCatalog may take from CatalogOptions.Previous.
type reuse struct {
	prev       *Catalog
	validators bool // prev's tools were compiled by the same Compiler
	rank       bool // prev's index reads parameter text as this one does

	// missed are the inputs not found where Previous had them, in input order, and
	// looked[k] is input missed[k] as looked for elsewhere (its sample computed);
	// probeOf reads them in input order from missed[at] on.
	missed []int32
	looked []probe
	at     int
}

// matchChunk is how many inputs one goroutine of match compares at a time.
const matchChunk = 256

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

// match returns, for each input, the tool of Previous built from the same text, or -1.
// It first compares each input with the tools Previous was given near the same position
// (inPlace, on every core), then looks for the others among the tools of Previous not
// found so far (elsewhere): a version that changes a few tools costs a comparison of
// each text with one tool's, and work for those few alone.
func (r *reuse) match(tools []json.RawMessage) []int32 {
	prevOf := make([]int32, len(tools))
	for i := range prevOf {
		prevOf[i] = -1
	}
	if r.prev == nil {
		return prevOf
	}
	parallel.Chunks(len(tools), matchChunk, func(_, lo, hi int) { r.inPlace(tools, prevOf, lo, hi) })
	r.elsewhere(tools, prevOf)
	return prevOf
}

// inPlace looks for inputs lo to hi-1 among the tools Previous was given at about the
// same positions: input i first where the last one found was followed (at i itself at
// first), then one after (a tool gone before it) and one before (one come); a text not
// found moves on one (a tool changed in place).
func (r *reuse) inPlace(tools []json.RawMessage, prevOf []int32, lo, hi int) {
	in := r.prev.inputs
	next := lo // the input of Previous expected to be input i's text
	for i := lo; i < hi; i++ {
		p := probe{text: tools[i]}
		for _, k := range [3]int{next, next + 1, next - 1} {
			if k >= 0 && k < len(in) && p.builtFrom(&r.prev.tools[in[k]]) {
				prevOf[i], next = in[k], k
				break
			}
		}
		next++
	}
}

// elsewhere looks for the inputs inPlace did not find among the tools of Previous no
// input was found to be, by the sample of their text, and keeps them in r.missed with
// their probes.
func (r *reuse) elsewhere(tools []json.RawMessage, prevOf []int32) {
	for i, j := range prevOf {
		if j < 0 {
			r.missed = append(r.missed, int32(i))
		}
	}
	if len(r.missed) == 0 {
		return
	}
	taken := make([]bool, len(r.prev.tools))
	for _, j := range prevOf {
		if j >= 0 {
			taken[j] = true
		}
	}
	// bySample[s] is the last tool not taken whose text had sample s, chain[j] the one
	// before tool j with its sample (-1 if none).
	bySample := make(map[uint64]int32)
	chain := make(map[int32]int32)
	for j := range r.prev.tools {
		if !taken[j] {
			s := r.prev.tools[j].sample
			if k, ok := bySample[s]; ok {
				chain[int32(j)] = k
			}
			bySample[s] = int32(j)
		}
	}
	r.looked = make([]probe, len(r.missed))
	for k, i := range r.missed {
		p := &r.looked[k]
		p.text = tools[i]
		j, ok := bySample[p.sampleOf()]
		for n := 0; ok && n < maxCandidates; n++ {
			if !taken[j] && p.builtFrom(&r.prev.tools[j]) {
				prevOf[i], taken[j] = j, true
				break
			}
			j, ok = chain[j]
		}
	}
}

// probeOf returns input i, text, as it was looked for in Previous, with what was
// computed then. NewCatalog asks for inputs in input order.
func (r *reuse) probeOf(i int, text []byte) probe {
	for r.at < len(r.missed) && int(r.missed[r.at]) < i {
		r.at++
	}
	if r.at < len(r.missed) && int(r.missed[r.at]) == i {
		return r.looked[r.at]
	}
	return probe{text: text}
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
// for byte with its canonical form when that was its text, else by sample then textKey.
func (p *probe) builtFrom(t *tool) bool {
	if t.rawCanonical {
		return bytes.Equal(p.text, t.canonical)
	}
	return p.sampleOf() == t.sample && p.keyOf() == t.key
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
