package plan

import (
	"testing"

	"github.com/deferredtools/deferredtools/internal/tooldef"
)

// CacheStats reports what pl's cache holds: lists, derived tools and the bytes counted.
func CacheStats(pl *Planner) (lists, tools int, bytes int64) {
	c := &pl.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byList), len(c.byTool), c.bytes
}

// SetCacheBudget sets the bound of pl's cache in bytes.
func SetCacheBudget(pl *Planner, n int64) {
	pl.cache.mu.Lock()
	defer pl.cache.mu.Unlock()
	pl.cache.budget = n
}

// The _meta key the Planner documents is the one the shared reader reads (SPEC PLAN-3).
func TestMetaEagerKeyIsRead(t *testing.T) {
	if MetaEagerKey != tooldef.MetaEagerKey {
		t.Fatalf("MetaEagerKey = %q, but tooldef reads %q", MetaEagerKey, tooldef.MetaEagerKey)
	}
}

// ForgetLists drops the authorised sets pl's cache holds, keeping the derived tools, so
// the next plan of any set is a plan of a set not seen before over known definitions.
func ForgetLists(pl *Planner) {
	pl.cache.mu.Lock()
	defer pl.cache.mu.Unlock()
	clear(pl.cache.byList)
}

// ClearCache drops everything pl's cache holds.
func ClearCache(pl *Planner) {
	pl.cache.mu.Lock()
	defer pl.cache.mu.Unlock()
	clear(pl.cache.byList)
	clear(pl.cache.byTool)
	pl.cache.bytes = 0
}
