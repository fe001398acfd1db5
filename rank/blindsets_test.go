package rank_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// TestBlindSets prints, for RANK_BLIND=1, the figures of the blind sets in
// testdata/blind (testdata/blind/README.md: written by a session that never saw the
// ranker), pooled by kind of set over the six catalogs: long tasks, paraphrases and
// requests nothing serves. They are measured once per change that claims a gain, never
// tuned on; rankeval prints the same per set.
func TestBlindSets(t *testing.T) {
	if os.Getenv("RANK_BLIND") == "" {
		t.Skip("set RANK_BLIND=1 (blind sets: measure once, never tune on them)")
	}
	if _, err := os.Stat(sharedData); err != nil {
		t.Skipf("shared data folder %s absent: no quality evaluation", sharedData)
	}
	files, err := filepath.Glob("testdata/blind/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no blind set in testdata/blind (%v)", err)
	}
	pools := map[string]*pooled{}
	for _, f := range files {
		cat, kind, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".json"), ".")
		docs, qs := devSet{cat + "." + kind, filepath.Join(sharedData, "catalogs", cat+".json"), f}.load(t)
		rep := rankeval.Evaluate(docs, qs, rankeval.Ours(docs))
		if len(rep.Skipped) > 0 {
			t.Errorf("%s: %d queries name tools the catalog lacks", f, len(rep.Skipped))
		}
		if pools[kind] == nil {
			pools[kind] = &pooled{}
		}
		pools[kind].add(&rep)
	}
	for _, k := range slices.Sorted(maps.Keys(pools)) {
		fmt.Printf("BLIND %-8s %s\n", k, pools[k])
	}
}
