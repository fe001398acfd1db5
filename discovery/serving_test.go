package discovery_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// SPEC CURSOR-2, CURSOR-6 (property): flipping any one bit of a cursor, in its text or
// in the bytes it encodes, makes it invalid_cursor; the unflipped cursor works.
func TestCursorBitFlips(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, append(sampleTools(), helperTools(10)...)...)
	d := newDiscoverer(cat, allGranted(t, cat), nil)
	res, err := d.Discover(ctx, alice, discovery.Request{Query: "model", Limit: 2})
	if err != nil || res.NextCursor == "" {
		t.Fatalf("first page: %v", err)
	}
	tok := res.NextCursor
	try := func(what, c string) {
		_, err := d.Discover(ctx, alice, discovery.Request{Query: "model", Limit: 2, Cursor: c})
		wantCode(t, what, err, discovery.CodeInvalidCursor)
	}
	n := 0
	for i := range len(tok) {
		for bit := range 8 {
			b := []byte(tok)
			b[i] ^= 1 << bit
			try(fmt.Sprintf("text byte %d bit %d", i, bit), string(b))
			n++
		}
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err == nil {
		for i := range len(raw) {
			for bit := range 8 {
				b := slices.Clone(raw)
				b[i] ^= 1 << bit
				try(fmt.Sprintf("raw byte %d bit %d", i, bit), base64.RawURLEncoding.EncodeToString(b))
				n++
			}
		}
	}
	// Truncated, extended, empty-looking and foreign cursors too.
	for _, c := range []string{tok[:len(tok)-1], tok + "A", tok + tok, strings.Repeat("A", len(tok)), cursor.NewSigner().Seal(make([]byte, 32), 2, time.Now())} {
		try("mangled "+c, c)
	}
	if _, err := d.Discover(ctx, alice, discovery.Request{Query: "model", Limit: 2, Cursor: tok}); err != nil {
		t.Errorf("the unflipped cursor: %v", err)
	}
	t.Logf("%d one-bit flips rejected", n)
}

// SPEC PAGE-1, PAGE-4, DISC-3 on real catalogs (../shared/data/catalogs): every walk
// of a few queries stays under 64 KiB a page, yields each ranked tool once, and serves
// the bytes ListTools serves.
func TestRealCatalogs(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "data", "catalogs")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real catalogs not available (%s absent)", dir)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("%s exists but holds no *.json catalog", dir)
	}
	ctx := t.Context()
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var tools []json.RawMessage
		if err := json.Unmarshal(data, &tools); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		cat, err := discovery.NewCatalog(tools, &discovery.CatalogOptions{Limits: schemaguard.Limits{}})
		if err != nil {
			t.Errorf("%s: NewCatalog: %v", filepath.Base(file), err)
			continue
		}
		granted := map[string]bool{}
		for _, n := range cat.Names() {
			granted[n] = true
		}
		d := newDiscoverer(cat, allGranted(t, cat), nil)
		list, err := d.ListTools(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]string{}
		for i, n := range toolNames(t, list.Tools) {
			listed[n] = string(list.Tools[i])
		}
		for _, q := range []string{"create issue", "list files in a directory", "search", "get pull request comments", "storage account", "navigate browser page", "database query"} {
			want := oracle(t, cat, granted, q)
			var got []string
			cur := ""
			for {
				resp, _ := d.HandleJSONRPC(ctx, alice, discoverMsg(`"real"`, q, 16, cur))
				if len(resp) > discovery.MaxResponseBytes {
					t.Fatalf("%s %q: %d bytes", file, q, len(resp))
				}
				pg := decodePage(t, resp)
				if pg.err != "" {
					t.Fatalf("%s %q: %s", file, q, pg.err)
				}
				for _, raw := range pg.tools {
					n := toolNames(t, []json.RawMessage{raw})[0]
					if listed[n] != string(raw) {
						t.Errorf("%s: %s served differently by discover and ListTools", file, n)
					}
					got = append(got, n)
				}
				if pg.cursor == "" {
					break
				}
				cur = pg.cursor
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s %q: walk differs from the ranking (%d vs %d tools)", filepath.Base(file), q, len(got), len(want))
			}
		}
	}
}

// The Discoverer is safe for concurrent use: discovery walks, lists and calls run in
// parallel with grant writes and catalog swaps, and every answer is a page or one of
// the refusals such changes explain (run with -race).
func TestConcurrentUse(t *testing.T) {
	ctx := t.Context()
	v1 := newCatalog(t, append(sampleTools(), helperTools(20)...)...)
	tools2 := append(sampleTools(), helperTools(20)...)
	tools2[0] = toolDef("model_search", "Search the model registry by name, task, tag or owner.")
	v2 := newCatalog(t, tools2...)
	src := new(discovery.SwappableCatalog)
	src.Store(v1)
	store := allGranted(t, v1)
	d := newDiscoverer(src, store, nil)
	allowed := map[discovery.Code]bool{discovery.CodeInvalidCursor: true, discovery.CodeGrantsChanged: true, discovery.CodeToolNotGranted: true}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			if i%2 == 0 {
				store.Delete(ctx, "*", "helper_05")
				src.Store(v2)
			} else {
				store.Put(ctx, allow("*", "helper_05"))
				src.Store(v1)
			}
		}
	}()
	check := func(err error) {
		var e *discovery.Error
		if err != nil && (!errors.As(err, &e) || !allowed[e.Code]) {
			t.Errorf("unexpected refusal under concurrent change: %v", err)
		}
	}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				cur := ""
				for range 30 {
					res, err := d.Discover(ctx, alice, discovery.Request{Query: "model helper", Limit: 1 + (g+i)%4, Cursor: cur})
					check(err)
					if err != nil || res.NextCursor == "" {
						break
					}
					cur = res.NextCursor
				}
				_, err := d.ListTools(ctx, alice)
				check(err)
				check(d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "helper_05", Arguments: json.RawMessage(`{"text":"x"}`)}))
			}
		}()
	}
	wg.Wait()
	<-done
}

// SPEC PERF-1: the allocations of a discover request do not grow with the catalog:
// the same queries over 1,000 and 10,000 tools (1,000 and 4,096 granted, the most one
// grant read may hold) allocate the same per request. Small tools keep the test fast;
// allocation counts do not depend on tool size.
func TestDiscoverAllocsFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,000-tool catalog")
	}
	if poolsLossy() {
		t.Skip("sync.Pool drops items at random (race detector): allocation counts are not stable")
	}
	ctx := context.Background()
	allocs := map[int]float64{}
	for _, n := range []int{1000, 10000} {
		r := rand.New(rand.NewPCG(7, uint64(n)))
		tools := make([]json.RawMessage, n)
		for i := range tools {
			w := func() string { return vocabulary[r.IntN(len(vocabulary))] }
			tools[i] = toolDef(fmt.Sprintf("%s_%s_%05d", w(), w(), i), strings.Join([]string{w(), w(), w(), w(), w(), w()}, " ")+".")
		}
		cat := newCatalog(t, tools...)
		names := cat.Names()
		var rows []grants.Row
		for _, i := range r.Perm(n)[:min(n, grants.MaxRows)] {
			rows = append(rows, allow("alice", names[i]))
		}
		d := newDiscoverer(cat, newStore(t, rows...), nil)
		for _, q := range benchQueries { // warm the caches
			if _, err := d.Discover(ctx, alice, discovery.Request{Query: q}); err != nil {
				t.Fatal(err)
			}
		}
		i := 0
		allocs[n] = testing.AllocsPerRun(200, func() {
			d.Discover(ctx, alice, discovery.Request{Query: benchQueries[i%len(benchQueries)]})
			i++
		})
	}
	t.Logf("allocs per Discover: %v", allocs)
	if allocs[10000] > allocs[1000] {
		t.Errorf("allocations grow with the catalog: %v per request at 1,000 tools, %v at 10,000", allocs[1000], allocs[10000])
	}
}

// poolsLossy reports whether sync.Pool drops what is put in it, as it does at random
// under the race detector.
func poolsLossy() bool {
	var p sync.Pool
	lost := 0
	for range 200 {
		p.Put(new(int))
		if p.Get() == nil {
			lost++
		}
	}
	return lost > 20
}

// htmlTool returns a tool of about size bytes whose text is dense in the characters
// encoding/json escapes most expensively: <, >, & (six bytes each with HTML escaping),
// quotes, backslashes, U+2028 and U+2029.
func htmlTool(r *rand.Rand, i, size int) json.RawMessage {
	w := func() string { return vocabulary[r.IntN(len(vocabulary))] }
	name := fmt.Sprintf("%s_%s_%04d", w(), w(), i)
	props := map[string]any{}
	total := 0
	for k := 0; total < size; k++ {
		var b strings.Builder
		for range 3 + r.IntN(20) {
			b.WriteString(w())
			b.WriteString([]string{" <b>", " &amp; ", `"q"`, `\`, "\u2028", "\u2029", " > ", " ", "é"}[r.IntN(9)])
		}
		props[fmt.Sprintf("%s_%d", w(), k)] = map[string]any{"type": "string", "description": b.String()}
		total += b.Len() + 40
	}
	return toolDefSchema(name, w()+" <"+w()+"> & "+w()+" "+w(), map[string]any{"type": "object", "properties": props})
}

// SPEC PAGE-1, PAGE-2, PAGE-4 for the discovery tool: DiscoverTool's page, framed as a
// tools/call result that carries it twice (structuredContent, and escaped as a text
// block) by encoding/json with HTML escaping on and a MaxIDBytes id, is at most 65,536
// bytes; walking its cursors yields the ranking once, in order.
func TestDiscoverToolFrame(t *testing.T) {
	const toolResultReserve = 256 // the framing besides the id DiscoverTool documents
	ctx := t.Context()
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type toolResult struct {
		Content           []content       `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	type response struct {
		JSONRPC string     `json:"jsonrpc"`
		ID      string     `json:"id"`
		Result  toolResult `json:"result"`
	}
	id := strings.Repeat("i", discovery.MaxIDBytes-2) // a string id of MaxIDBytes bytes, quotes included
	maxSeen, pages := 0, 0
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 0x7001))
		var tools []json.RawMessage
		for i := range 120 {
			if i%2 == 0 {
				tools = append(tools, htmlTool(r, i, 800+r.IntN(8000)))
			} else {
				tl, _, _ := genTool(r, i, 1000+r.IntN(6000))
				tools = append(tools, tl)
			}
		}
		cat := newCatalog(t, tools...)
		granted := map[string]bool{}
		for _, n := range cat.Names() {
			granted[n] = true
		}
		d := newDiscoverer(cat, allGranted(t, cat), nil)
		orc := newOracle(t, cat, granted)
		for range 6 {
			q := genQuery(r)
			limit := 1 + r.IntN(16)
			want := orc.rank(q)
			var got []string
			cur := ""
			for page := 0; page <= len(want); page++ {
				args, _ := json.Marshal(map[string]any{"query": q, "limit": limit, "cursor": cur})
				res, err := d.DiscoverTool(ctx, alice, args)
				if err != nil {
					t.Fatalf("seed %d %q: %v", seed, q, err)
				}
				page := res.AppendJSON(nil)
				framed, err := json.Marshal(response{"2.0", id, toolResult{[]content{{"text", string(page)}}, page}})
				if err != nil {
					t.Fatal(err)
				}
				pages++
				maxSeen = max(maxSeen, len(framed))
				if len(framed) > discovery.MaxResponseBytes-toolResultReserve+len(`{"content":[{"type":"text","text":""}],"structuredContent":}`) {
					t.Fatalf("seed %d %q: the discovery tool's response is %d bytes", seed, q, len(framed))
				}
				got = append(got, toolNames(t, res.Tools)...)
				if res.NextCursor == "" {
					break
				}
				cur = res.NextCursor
			}
			if !slices.Equal(got, want) {
				t.Errorf("seed %d %q limit %d: walked %d tools, ranking has %d", seed, q, limit, len(got), len(want))
			}
		}
	}
	t.Logf("%d pages, largest framed response %d bytes", pages, maxSeen)
	if maxSeen < discovery.MaxResponseBytes/2 {
		t.Errorf("largest framed response only %d bytes: the test does not approach the bound", maxSeen)
	}

	// Invalid arguments and the switch.
	cat := newCatalog(t, sampleTools()...)
	d := newDiscoverer(cat, allGranted(t, cat), nil)
	_, err := d.DiscoverTool(ctx, alice, json.RawMessage(`{"query":"model","other":1}`))
	wantCode(t, "DiscoverTool with an unknown member", err, discovery.CodeInvalidParams)
	_, err = discovery.New(&discovery.Options{Catalog: cat, Grants: forbiddenReader{t}}).DiscoverTool(ctx, alice, json.RawMessage(`{"query":"model"}`))
	wantCode(t, "DiscoverTool while off", err, discovery.CodeMethodNotFound)
}
