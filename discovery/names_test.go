package discovery_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// toolName reads the name of a tool definition.
func toolName(t testing.TB, def json.RawMessage) string {
	t.Helper()
	var f struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(def, &f); err != nil {
		t.Fatalf("tool definition is not JSON: %v", err)
	}
	return f.Name
}

// discoverable reports whether walking every page of Discover for query finds the tool
// name.
func discoverable(t testing.TB, d *discovery.Discoverer, p grants.Principal, query, name string) bool {
	t.Helper()
	req := discovery.Request{Query: query}
	for range 1000 {
		res, err := d.Discover(context.Background(), p, req)
		if err != nil {
			t.Fatalf("Discover(%q): %v", req.Query, err)
		}
		for _, def := range res.Tools {
			if toolName(t, def) == name {
				return true
			}
		}
		if res.NextCursor == "" {
			return false
		}
		req.Cursor = res.NextCursor
	}
	t.Fatalf("Discover(%q): more than 1000 pages", req.Query)
	return false
}
