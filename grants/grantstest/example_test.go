package grantstest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
)

// A consumer proves that it fails closed: with grant storage failing, a Discoverer
// answers grants_unavailable (503) to every request, never an empty or cached page,
// and the cause stays matchable.
func ExampleErrReader() {
	ctx := context.Background()
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"get_weather","description":"Current weather of a city.","inputSchema":{"type":"object"}}`),
	}, nil)
	if err != nil {
		panic(err)
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat,
		Grants: &grantstest.ErrReader{}}) // every read fails with grants.ErrUnavailable
	p := grants.Principal{ID: "ann"}

	_, err = d.Discover(ctx, p, discovery.Request{Query: "weather"})
	var de *discovery.Error
	if !errors.As(err, &de) {
		panic("not a *discovery.Error")
	}
	fmt.Println("discover:", err, de.Code.Status(), errors.Is(err, grants.ErrUnavailable))
	_, err = d.ListTools(ctx, p)
	fmt.Println("list:", errors.Is(err, discovery.CodeGrantsUnavailable))
	err = d.AuthorizeCall(ctx, p, discovery.Call{Tool: "get_weather"})
	fmt.Println("call:", errors.Is(err, discovery.CodeGrantsUnavailable))
	// Output:
	// discover: discovery: grants_unavailable 503 true
	// list: true
	// call: true
}
