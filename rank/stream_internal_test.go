package rank

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPostingStreamRoundTrip checks the posting stream of a build gives back every
// posting as added, in order: keys of every varint length, docs without postings,
// saturations repeated within a doc, a doc with more distinct saturations than it
// numbers (satTable), and postings over many chunks.
func TestPostingStreamRoundTrip(t *testing.T) {
	type post struct {
		doc, key uint32
		sat      float32
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const docs = 400
	var want []post
	for d := uint32(0); d < docs; d++ {
		n := rng.IntN(300)
		distinct := 1 + rng.IntN(8)
		switch d {
		case 7:
			n, distinct = 2000, 1000 // more than satTable distinct saturations
		case 9:
			n = 0
		}
		for range n {
			key := rng.Uint32() >> rng.IntN(32)
			sat := float32(rng.IntN(distinct)) / 7
			if rng.IntN(50) == 0 {
				sat = math.Float32frombits(rng.Uint32()) // any bits, even a NaN
			}
			want = append(want, post{d, key, sat})
		}
	}
	ps := postingStream{docs: make([]uint32, docs)}
	for _, p := range want {
		ps.add(posting{p.doc, p.sat}, p.key)
	}
	if len(ps.chunks) < 2 {
		t.Fatalf("%d chunks: the test should span several", len(ps.chunks)+1)
	}
	i := 0
	ps.each(func(doc, key uint32, sat float32) {
		if i >= len(want) {
			t.Fatalf("more postings than added (%d)", len(want))
		}
		if w := want[i]; doc != w.doc || key != w.key || math.Float32bits(sat) != math.Float32bits(w.sat) {
			t.Fatalf("posting %d is (%d, %d, %x), want (%d, %d, %x)", i, doc, key,
				math.Float32bits(sat), w.doc, w.key, math.Float32bits(w.sat))
		}
		i++
	})
	if i != len(want) {
		t.Fatalf("%d postings read, %d added", i, len(want))
	}
}

// TestInverterSaturation checks the inverter's saturations, kept per doc by counts, are
// params.saturation's to the bit: docs alternating, counts met again, in one field or
// several, more distinct counts than the inverter keeps.
func TestInverterSaturation(t *testing.T) {
	v := newInverter(defaultParams, nil, nil)
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 2000 {
		i := round % 3
		norm := [numFields]float64{1 + float64(i), 0.5 + float64(i)/3, 1.25, 0.75 + float64(i)}
		var c [numFields]uint16
		for f := range c {
			if rng.IntN(3) == 0 {
				c[f] = uint16(rng.IntN(6))
			}
		}
		got, want := v.saturation(i, c, &norm), float32(v.p.saturation(c, norm))
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("doc %d, counts %v: saturation %v, want %v", i, c, got, want)
		}
	}
}
