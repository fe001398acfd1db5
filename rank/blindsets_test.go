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
// testdata/blind and testdata/blind2 (each folder's README.md: written by sessions that
// never saw the ranker), pooled by kind of set over the six catalogs: long tasks,
// paraphrases and requests nothing serves. They are measured once per change that claims
// a gain, never tuned on; rankeval prints the same per set.
func TestBlindSets(t *testing.T) {
	if os.Getenv("RANK_BLIND") == "" {
		t.Skip("set RANK_BLIND=1 (blind sets: measure once, never tune on them)")
	}
	printFolderPools(t, "BLIND", "testdata/blind")
	printFolderPools(t, "BLIND2", "testdata/blind2")
}

// TestTune2Sets prints, for RANK_TUNE2=1, the figures of the second tuning sets in
// testdata/tune2 (written like the blind ones, by a session that never saw the ranker,
// but for tuning: their misses may be read), pooled by kind over the six catalogs, then
// over two halves: the catalogs whose misses the eighth pass read (tune2Read) and the
// others, measured as pooled figures only.
func TestTune2Sets(t *testing.T) {
	if os.Getenv("RANK_TUNE2") == "" {
		t.Skip("set RANK_TUNE2=1")
	}
	printFolderPools(t, "TUNE2", "testdata/tune2")
	printFolderPools(t, "TUNE2-read", "testdata/tune2", tune2Read...)
	printFolderPools(t, "TUNE2-check", "testdata/tune2", "gitlab", "mcp-reference", "playwright")
}

// tune2Read are the catalogs of tune2 whose long tasks' misses the eighth pass read.
var tune2Read = []string{"github", "azure", "notion"}

// printFolderPools evaluates every CATALOG.KIND.json set in dir against its catalog and
// prints the reports pooled by KIND, each line led by label; only the catalogs named in
// only, if any.
func printFolderPools(t *testing.T, label, dir string, only ...string) {
	if _, err := os.Stat(sharedData); err != nil {
		t.Skipf("shared data folder %s absent: no quality evaluation", sharedData)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no query set in %s (%v)", dir, err)
	}
	pools := map[string]*pooled{}
	for _, f := range files {
		cat, kind, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".json"), ".")
		if len(only) > 0 && !slices.Contains(only, cat) {
			continue
		}
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
		fmt.Printf("%s %-8s %s\n", label, k, pools[k])
	}
}
