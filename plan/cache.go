package plan

import (
	"encoding/json"
	"sync"
	"unsafe"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// cacheBytes bounds what a Planner's cache holds. It fits the derived data of a
// catalog of several megabytes, whose native definitions are about the size of its
// canonical ones.
const cacheBytes = 32 << 20

// Approximate fixed costs of the cache's entries, for its byte count: toolData (its
// size, which the provider definitions raised), its map slot and digest key; a list's
// map slot, key header and slice header.
const (
	toolEntryBytes = int64(unsafe.Sizeof(toolData{})) + 48
	listEntryBytes = 96
)

// toolData is what a Planner's policy makes of one canonical tool definition.
type toolData struct {
	name   string
	eager  bool            // sent in full whatever the threshold
	native json.RawMessage // the definition with "defer_loading": true, when !eager
	line   string          // the client-side catalog line, when !eager, unmarked (markAt)
	render toolRender      // its provider definitions (Request)
	ns     string          // its OpenAI namespace (Policy.OpenAINamespace), when !eager
	nsDesc string          // the namespace's description
}

// cache holds what a Planner derives from canonical tool definitions, keyed by content
// only, so it keeps no catalog, Discoverer or grant snapshot alive:
//
//   - byTool maps a tool's digest (SHA-256 of its canonical bytes, as the catalog
//     version computed it: ListResult.AppendDigests) to its toolData, shared by every
//     authorised set and catalog version holding those exact bytes;
//   - byList maps a tools/list contract digest (SPEC CONTRACT-2, which digests the
//     tools' digests in name order) to the toolData of each of its tools, in order, so
//     a plan for a set seen before costs one lookup.
//
// Entries live until the bytes counted (the native definitions, lines, names, provider
// descriptions and schemas, and fixed costs) would pass cacheBytes; then both maps are
// dropped at once and refill on use. A list whose data alone passes the bound is still
// kept, alone, so the working set of one catalog never thrashes. A policy is fixed per
// Planner, so it is not part of a key; safe mode's marks are not cached (a meta tool's
// depend on its catalog version's declarations, not its bytes): each plan asks its
// ListResult. Safe for concurrent use; derivation runs under the lock, once per definition.
type cache struct {
	mu     sync.Mutex
	budget int64
	bytes  int64
	byTool map[[32]byte]*toolData
	byList map[string][]*toolData
}

// tools returns the toolData of each of list's tools, in list order, deriving (with
// pl.derive) those of definitions not seen before.
func (c *cache) tools(pl *Planner, list *discovery.ListResult) []*toolData {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ts, ok := c.byList[list.ContractDigest]; ok && len(ts) == len(list.Tools) {
		return ts
	}
	if c.byList == nil {
		c.byList = make(map[string][]*toolData)
		c.byTool = make(map[[32]byte]*toolData)
	}
	ts := make([]*toolData, len(list.Tools))
	// The tools' digests, as their catalog version computed them.
	keys := list.AppendDigests(make([][32]byte, 0, len(list.Tools)))
	var add int64 // bytes of the toolData derived now
	for i, def := range list.Tools {
		t, ok := c.byTool[keys[i]]
		if !ok {
			t = pl.derive(def)
			c.byTool[keys[i]] = t
			add += t.bytes()
		}
		ts[i] = t
	}
	add += listBytes(list.ContractDigest, ts)
	if c.bytes+add > c.budget {
		// Drop everything but what this list uses, and count that as the new content.
		clear(c.byList)
		clear(c.byTool)
		c.bytes, add = 0, listBytes(list.ContractDigest, ts)
		for i, t := range ts {
			c.byTool[keys[i]] = t
			add += t.bytes()
		}
	}
	c.byList[list.ContractDigest] = ts
	c.bytes += add
	return ts
}

// known returns the toolData of def, a canonical definition, if the cache holds it.
func (c *cache) known(def []byte) (*toolData, bool) {
	key := schemaguard.Digest(def)
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.byTool[key]
	return t, ok
}

// bytes is what t counts against the cache's bound.
func (t *toolData) bytes() int64 {
	r := &t.render.anthropic // the OpenAI definition shares its strings and schema
	return toolEntryBytes + int64(len(t.name)+len(t.native)+len(t.line)+len(r.Description)+len(r.InputSchema)+len(t.ns)+len(t.nsDesc))
}

// listBytes is what a byList entry counts against the cache's bound.
func listBytes(key string, ts []*toolData) int64 {
	return listEntryBytes + int64(len(key)+8*len(ts))
}
