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
	p.W = [4]float64{1, 1, 1, 0}
	vs = append(vs, variant{"equal field weights", p})
	if os.Getenv("RANK_TUNE") == "features" {
		return vs
	}
	for _, k1 := range []float64{0.6, 0.9, 1.5, 2} {
		p := base
		p.K1 = k1
		vs = append(vs, variant{fmt.Sprint("k1=", k1), p})
	}
	for _, w := range [][4]float64{{2, 1.5, 1, 0}, {4, 2, 1, 0}, {5, 3, 1, 0}, {3, 3, 1, 0}, {6, 3, 1, 0}} {
		p := base
		p.W = w
		vs = append(vs, variant{fmt.Sprint("w=", w), p})
	}
	for _, b := range [][4]float64{{0, 0, 0.75, 0.75}, {0.75, 0.75, 0.75, 0.75}, {0.5, 0.5, 0.5, 0.75}, {0.5, 0.5, 0.9, 0.75}, {0.3, 0.3, 0.6, 0.75}} {
		p := base
		p.B = b
		vs = append(vs, variant{fmt.Sprint("b=", b), p})
	}
	for _, pv := range [][4]float64{{2, 4, 20, 30}, {3, 5, 50, 30}, {4, 6, 40, 30}, {3, 5, 15, 30}} {
		p := base
		p.Pivot = pv
		vs = append(vs, variant{fmt.Sprint("pivot=", pv), p})
	}
	return vs
}
