package rank_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
)

// TestStepGrid prints, for RANK_STEPS=1, the pooled figures of the tuning sets for a
// grid of step bonuses and least content words of a step.
func TestStepGrid(t *testing.T) {
	if os.Getenv("RANK_STEPS") == "" {
		t.Skip("set RANK_STEPS=1")
	}
	sets := loadKindSets(t, false)
	if os.Getenv("RANK_STEPS") == "sharp" {
		for _, p := range []float64{1, 2, 4, 8} {
			for _, b := range []float64{0.5, 1} {
				restore := rank.SetStepSharp(p)
				r2 := rank.SetStepBonus(b, 2)
				pools := evalPools(sets, false)
				r2()
				restore()
				fmt.Printf("sharp %.0f bonus %.2f", p, b)
				printPools(pools)
			}
		}
		return
	}
	if os.Getenv("RANK_STEPS") == "hint" {
		for _, w := range []float64{0, 0.25, 0.5, 1} {
			restore := rank.SetHintWeight(w)
			pools := evalPools(sets, false)
			restore()
			fmt.Printf("hint %.2f", w)
			printPools(pools)
		}
		return
	}
	if os.Getenv("RANK_STEPS") == "literal" {
		for _, w := range []float64{1, 0.5, 0.3, 0.15, 0} {
			restore := rank.SetLiteralWeight(w)
			pools := evalPools(sets, false)
			restore()
			fmt.Printf("literal %.2f", w)
			printPools(pools)
		}
		return
	}
	for _, words := range []int{1, 2, 3} {
		for _, b := range []float64{0, 0.25, 0.5, 0.75, 1, 1.5} {
			restore := rank.SetStepBonus(b, words)
			pools := evalPools(sets, false)
			restore()
			fmt.Printf("bonus %.2f words %d", b, words)
			printPools(pools)
		}
	}
}
