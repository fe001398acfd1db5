package rank_test

import (
	"fmt"
	"os"

	"github.com/deferredtools/deferredtools/rank"
)

func variants(base rank.Params) []variant {
	var vs []variant
	if os.Getenv("RANK_TUNE") == "params" {
		for _, w := range []float64{0.1, 0.2, 0.3, 0.5, 0.8} {
			for _, b := range []float64{0.5, 0.75, 1} {
				for _, pv := range []float64{15, 30, 60} {
					p := base
					p.W[3] = w
					p.B[3] = b
					p.Pivot[3] = pv
					vs = append(vs, variant{fmt.Sprint("params w=", w, " b=", b, " pivot=", pv), p})
				}
			}
		}
		return vs
	}
	for _, w := range []float64{0, 0.2} {
		p := base
		p.Surf = w
		vs = append(vs, variant{fmt.Sprint("surface=", w), p})
	}
	for _, w := range []float64{0, 0.3, 1} {
		p := base
		p.Pair = w
		vs = append(vs, variant{fmt.Sprint("pair=", w), p})
	}
	for _, f := range []struct {
		name string
		off  rank.Feature
	}{{"no split", rank.FeatSplit}, {"no stem", rank.FeatStem}, {"no stop words", rank.FeatStop},
		{"no abbreviations", rank.FeatAbbrev}, {"no synonyms", rank.FeatSynonyms}, {"no CJK bigrams", rank.FeatCJK},
		{"no accent folding", rank.FeatAccents}} {
		p := base
		p.Off = f.off
		vs = append(vs, variant{f.name, p})
	}
	p := base
	p.Whole = !p.Whole
	vs = append(vs, variant{fmt.Sprint("whole=", p.Whole), p})
	p = base
	copy(p.W[:3], []float64{1, 1, 1})
	vs = append(vs, variant{"equal field weights", p})
	p = base
	p.W[3] = 0
	vs = append(vs, variant{"no parameters", p})
	if os.Getenv("RANK_TUNE") == "features" {
		return vs
	}
	for _, k1 := range []float64{0.6, 0.9, 1.5, 2} {
		p := base
		p.K1 = k1
		vs = append(vs, variant{fmt.Sprint("k1=", k1), p})
	}
	// Name, title and description only: the parameters keep the base's constants.
	for _, w := range [][3]float64{{2, 1.5, 1}, {4, 2, 1}, {5, 3, 1}, {3, 3, 1}, {6, 3, 1}} {
		p := base
		copy(p.W[:3], w[:])
		vs = append(vs, variant{fmt.Sprint("w=", w), p})
	}
	for _, b := range [][3]float64{{0, 0, 0.75}, {0.75, 0.75, 0.75}, {0.5, 0.5, 0.5}, {0.5, 0.5, 0.9}, {0.3, 0.3, 0.6}} {
		p := base
		copy(p.B[:3], b[:])
		vs = append(vs, variant{fmt.Sprint("b=", b), p})
	}
	for _, pv := range [][3]float64{{2, 4, 20}, {3, 5, 50}, {4, 6, 40}, {3, 5, 15}} {
		p := base
		copy(p.Pivot[:3], pv[:])
		vs = append(vs, variant{fmt.Sprint("pivot=", pv), p})
	}
	return vs
}
