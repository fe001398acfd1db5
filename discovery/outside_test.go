package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// stressTools is a catalog version of 60 tools; versions differ in a seventh of their
// descriptions, so NewCatalog with Previous reuses most tools and rebuilds some.
func stressTools(gen int) []json.RawMessage {
	var out []json.RawMessage
	for i := range 60 {
		desc := fmt.Sprintf("search files tool %d", i)
		if i%7 == gen%7 {
			desc += fmt.Sprintf(" gen %d", gen)
		}
		out = append(out, json.RawMessage(fmt.Sprintf(`{"name":"t%02d","description":%q,"inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"files query"}}}}`, i, desc)))
	}
	return out
}

// TestOutsideStress drives a Discoverer only through its exported API, as a host does:
// hostile and bit-flipped JSON-RPC messages from four goroutines while catalog versions
// are swapped in, each built with Previous the last (run it with -race). Every response
// is valid JSON within MaxResponseBytes. Then, on a settled catalog, a tool revoked
// between two pages invalidates the first page's cursor (its control, page 2 without a
// revoke, succeeds), and is at once refused to AuthorizeCall and left out of ListTools.
//
// SPEC PAGE-1, PAGE-5, CURSOR-2, CALL-1
func TestOutsideStress(t *testing.T) {
	ctx := context.Background()
	store := grants.NewMemory()
	for i := range 60 {
		if _, err := store.Put(ctx, grants.Row{Principal: grants.AnyPrincipal, Tool: fmt.Sprintf("t%02d", i), Effect: grants.Allow}); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := discovery.NewCatalog(stressTools(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	var src discovery.SwappableCatalog
	src.Store(cat)
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: &src, Grants: store})
	p := grants.Principal{ID: "alice"}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var swaps int
	wg.Add(1)
	go func() { // catalog swaps with Previous
		defer wg.Done()
		prev := cat
		for g := 1; ; g++ {
			select {
			case <-stop:
				return
			default:
			}
			c, err := discovery.NewCatalog(stressTools(g), &discovery.CatalogOptions{Previous: prev})
			if err != nil {
				t.Error(err)
				return
			}
			src.Store(c)
			prev = c
			swaps++
		}
	}()
	hostile := []string{
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"files","limit":1e1}}`,
		`{"jsonrpc":"2.0","id":"x","method":"multillm.tools.discover","params":{"query":"files","limit":16,"cursor":"AAAA"}}`,
		`{"jsonrpc":"2.0","id":[1],"method":"multillm.tools.discover","params":{"query":"files"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","method":"x","params":{"query":"files"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"\u0000"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"files","query":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":[]}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"multillm.tools.discover","params":{"query":"files"}}`,
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("a", 70000) + `","method":"multillm.tools.discover","params":{"query":"files"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"files","limit":-0}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"multillm.tools.discover\",\"params\":{\"query\":\"\xff\"}}",
	}
	var workers sync.WaitGroup
	for w := range 4 {
		workers.Add(1)
		go func() {
			defer workers.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for range 300 {
				msg := []byte(hostile[rng.IntN(len(hostile))])
				if rng.IntN(2) == 0 && len(msg) > 2 {
					msg[rng.IntN(len(msg))] ^= byte(rng.IntN(256))
				}
				resp, status := d.HandleJSONRPC(ctx, p, msg)
				if len(resp) > discovery.MaxResponseBytes {
					t.Errorf("response of %d bytes", len(resp))
				}
				if status != 0 && status != 202 && !json.Valid(resp) {
					t.Errorf("status %d, invalid JSON %q", status, resp)
				}
			}
		}()
	}
	workers.Wait()
	close(stop)
	wg.Wait()
	if t.Failed() {
		return
	}
	if swaps == 0 {
		t.Fatal("no catalog version was swapped in while requests ran")
	}
	// Page through while a tool is revoked between pages: the next page must refuse.
	for round := range 20 {
		res, err := d.Discover(ctx, p, discovery.Request{Query: "files", Limit: 4})
		if err != nil {
			t.Fatal(err)
		}
		if res.NextCursor == "" {
			t.Fatal("no second page")
		}
		if _, err := d.Discover(ctx, p, discovery.Request{Query: "files", Limit: 4, Cursor: res.NextCursor}); err != nil {
			t.Fatalf("round %d: page 2 without a grant change: %v", round, err)
		}
		tool := fmt.Sprintf("t%02d", round)
		if _, err := store.Put(ctx, grants.Row{Principal: "alice", Tool: tool, Effect: grants.Deny}); err != nil {
			t.Fatal(err)
		}
		_, err = d.Discover(ctx, p, discovery.Request{Query: "files", Limit: 4, Cursor: res.NextCursor})
		if !errors.Is(err, discovery.CodeInvalidCursor) {
			t.Fatalf("round %d: page 2 after a revoke: %v, want invalid_cursor", round, err)
		}
		if err := d.AuthorizeCall(ctx, p, discovery.Call{Tool: tool, Arguments: json.RawMessage(`{}`)}); err == nil {
			t.Fatalf("revoked %s still callable", tool)
		}
		l, err := d.ListTools(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range l.Tools {
			if strings.Contains(string(raw), `"name":"`+tool+`"`) {
				t.Fatalf("revoked %s listed", tool)
			}
		}
	}
}
