package rank_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// TestNameLookup queries each tool of the real catalogs by its exact name: it must come
// first, but for the few names that differ from another only by a plural (get_user and
// get_users stem alike and tie, broken by name).
func TestNameLookup(t *testing.T) {
	dir := filepath.Join(sharedData, "catalogs")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real catalogs absent (%s): no name lookup check", dir)
	}
	found := 0
	for _, f := range rankeval.CatalogFiles {
		docs, err := rankeval.LoadCatalog(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		found++
		ix := rank.NewIndex(docs)
		all := allOf(len(docs))
		misses := 0
		for i, d := range docs {
			h := ix.Search(nil, d.Name, all, 1)
			if len(h) == 0 || h[0].Doc != i {
				misses++
				if misses > 2 {
					t.Errorf("%s: Search(%q) = %v first, want itself", f, d.Name, names(docs, h))
				}
			}
		}
	}
	if found == 0 {
		t.Fatalf("%s present but holds none of %v", dir, rankeval.CatalogFiles)
	}
}
