package grantstest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

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

// A slow store: a HookReader whose Before waits until the read's context ends, like
// a database that never answers. The Discoverer bounds each grant read by
// Options.GrantTimeout (2 s when unset; here 10 ms) when the request's context has no
// deadline, so the call answers grants_unavailable (503) instead of hanging, and
// refuses it rather than running it.
func ExampleHookReader_slowStore() {
	ctx := context.Background()
	cat, store := weather() // get_weather, granted to ann in a grants.Memory
	slow := &grantstest.HookReader{Base: store, Before: func(ctx context.Context, call int64) error {
		<-ctx.Done() // never answers before the deadline
		return ctx.Err()
	}}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: slow, GrantTimeout: 10 * time.Millisecond})

	err := d.AuthorizeCall(ctx, grants.Principal{ID: "ann"}, discovery.Call{Tool: "get_weather", Arguments: json.RawMessage(`{}`)})
	fmt.Println(err, errors.Is(err, context.DeadlineExceeded))
	// Output:
	// discovery: grants_unavailable true
}

// Malformed rows: a MalformedReader adds one row breaking the rule named by Reason to
// what its Base reads, for each reason in MalformedReasons. The Discoverer refuses
// the whole snapshot (SPEC GRANT-5), granted tool included, and the cause says which
// rule broke, never the row's content.
func ExampleMalformedReader() {
	ctx := context.Background()
	cat, store := weather() // get_weather, granted to ann in a grants.Memory
	for _, reason := range grantstest.MalformedReasons {
		d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat,
			Grants: &grantstest.MalformedReader{Base: store, Reason: reason}})
		err := d.AuthorizeCall(ctx, grants.Principal{ID: "ann"}, discovery.Call{Tool: "get_weather", Arguments: json.RawMessage(`{}`)})
		var me *grants.MalformedError
		errors.As(err, &me)
		fmt.Printf("%-9s %v (cause: %s)\n", reason, err, me.Reason)
	}
	// Output:
	// principal discovery: grants_unavailable (cause: principal)
	// tool      discovery: grants_unavailable (cause: tool)
	// effect    discovery: grants_unavailable (cause: effect)
	// scope     discovery: grants_unavailable (cause: scope)
	// revision  discovery: grants_unavailable (cause: revision)
	// duplicate discovery: grants_unavailable (cause: duplicate)
}

// weather returns a catalog of one tool, get_weather, and a grants.Memory granting it
// to ann: the real store the fakes of the examples above wrap.
func weather() (*discovery.Catalog, *grants.Memory) {
	cat, err := discovery.NewCatalog([]json.RawMessage{
		json.RawMessage(`{"name":"get_weather","description":"Current weather of a city.","inputSchema":{"type":"object"}}`),
	}, nil)
	if err != nil {
		panic(err)
	}
	store := grants.NewMemory()
	if _, err := store.Put(context.Background(), grants.Row{Principal: "ann", Tool: "get_weather", Effect: grants.Allow}); err != nil {
		panic(err)
	}
	return cat, store
}
