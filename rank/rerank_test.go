package rank_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
)

// TestStepGrid prints, for RANK_STEPS=1, the pooled figures of the tuning sets for a
// grid of the step bonus and spread (rerank.go); for RANK_STEPS=literal and hint, for a
// grid of the weight of quoted words and of the word "file" a file name adds (query.go).
func TestStepGrid(t *testing.T) {
	mode := os.Getenv("RANK_STEPS")
	if mode == "" {
		t.Skip("set RANK_STEPS=1, literal or hint")
	}
	sets := loadKindSets(t, false)
	run := func(label string, set func() (restore func())) {
		restore := set()
		pools := evalPools(sets, false)
		restore()
		fmt.Print(label)
		printPools(pools)
	}
	switch mode {
	case "literal":
		for _, w := range []float64{1, 0.5, 0.3, 0.15, 0} {
			run(fmt.Sprintf("literal %.2f", w), func() func() { return rank.SetLiteralWeight(w) })
		}
	case "hint":
		for _, w := range []float64{0, 0.25, 0.5, 1} {
			run(fmt.Sprintf("hint %.2f", w), func() func() { return rank.SetHintWeight(w) })
		}
	default:
		for _, spread := range []float64{0, 0.25, 0.5, 0.75} {
			for _, bonus := range []float64{0, 0.25, 0.5, 1} {
				for _, words := range []int{2} {
					run(fmt.Sprintf("spread %.2f bonus %.2f words %d", spread, bonus, words), func() func() {
						r1 := rank.SetStepSpread(spread)
						r2 := rank.SetStepBonus(bonus, words)
						return func() { r2(); r1() }
					})
				}
			}
		}
	}
}
