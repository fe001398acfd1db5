package discovery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// SPEC PAGE-1, PAGE-4: pages of the discovery tool, framed as a tools/call result that
// carries the page twice (structuredContent, and escaped in a text block) and encoded
// by encoding/json at its most cautious (HTML escaping on), stay within 65,536 bytes
// with an id of MaxIDBytes; walking them yields every ranked tool once, in order, as the
// discover method does.
func TestDiscoverToolPagesFitAToolResult(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	var tools []json.RawMessage
	for i := range 120 {
		// Descriptions heavy in what escaping inflates: quotes, <>&, U+2028.
		desc := fmt.Sprintf("tool %d searches widgets", i) +
			strings.Repeat(` "quoted" <b>&amp;</b> line`+"\u2028", 20+rng.IntN(200))
		def := map[string]any{
			"name":        fmt.Sprintf("widget_search_%03d", i),
			"description": desc,
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				"q": map[string]any{"type": "string", "description": desc},
			}},
		}
		raw, err := json.Marshal(def)
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, raw)
	}
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	store := grants.NewMemory()
	for _, n := range cat.Names() {
		if _, err := store.Put(ctx, grants.Row{Principal: "p", Tool: n, Effect: grants.Allow}); err != nil {
			t.Fatal(err)
		}
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
	p := grants.Principal{ID: "p"}
	id := strings.Repeat("9", discovery.MaxIDBytes)

	walk := func(page func(cursor string) (*discovery.Result, error)) []string {
		var names []string
		cursor := ""
		for range 200 {
			res, err := page(cursor)
			if err != nil {
				t.Fatalf("page after %d tools: %v", len(names), err)
			}
			for _, raw := range res.Tools {
				var tool struct{ Name string }
				json.Unmarshal(raw, &tool)
				names = append(names, tool.Name)
			}
			if res.NextCursor == "" {
				return names
			}
			cursor = res.NextCursor
		}
		t.Fatal("no last page after 200 pages")
		return nil
	}

	pages := 0
	viaTool := walk(func(cursor string) (*discovery.Result, error) {
		args, _ := json.Marshal(map[string]any{"query": "widgets", "limit": 16, "cursor": cursor})
		if cursor == "" {
			args = []byte(`{"query":"widgets","limit":16}`)
		}
		res, err := d.DiscoverTool(ctx, p, args)
		if err != nil {
			return nil, err
		}
		pages++
		page := json.RawMessage(res.AppendJSON(nil))
		resp, err := json.Marshal(map[string]any{
			"jsonrpc": "2.0", "id": json.RawMessage(id),
			"result": map[string]any{
				"content":           []any{map[string]any{"type": "text", "text": string(page)}},
				"structuredContent": page,
				"isError":           false,
			},
		})
		if err != nil {
			return nil, err
		}
		if len(resp) > discovery.MaxResponseBytes {
			t.Errorf("tool result page %d is %d bytes, over %d", pages, len(resp), discovery.MaxResponseBytes)
		}
		return res, nil
	})
	viaMethod := walk(func(cursor string) (*discovery.Result, error) {
		return d.Discover(ctx, p, discovery.Request{Query: "widgets", Limit: 16, Cursor: cursor})
	})
	if len(viaTool) != len(tools) || strings.Join(viaTool, ",") != strings.Join(viaMethod, ",") {
		t.Errorf("tool walk = %d tools, method walk = %d tools, want the same %d in the same order", len(viaTool), len(viaMethod), len(tools))
	}
	if pages < 4 {
		t.Errorf("only %d tool pages: the catalog does not exercise the bound", pages)
	}
}
