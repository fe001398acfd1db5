package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/observe"
)

// eventLog is an Options.Observe that keeps every Event.
type eventLog struct {
	mu     sync.Mutex
	events []observe.Event
}

func (l *eventLog) observe(_ context.Context, e observe.Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

// take returns the events since the last take.
func (l *eventLog) take() []observe.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.events
	l.events = nil
	return e
}

// catalogDigest returns the contract digest of the whole catalog, the Event's name
// for the catalog version.
func catalogDigest(t testing.TB, cat *discovery.Catalog) string {
	t.Helper()
	list, err := discovery.New(&discovery.Options{Catalog: cat}).ListTools(context.Background(), grants.Principal{})
	if err != nil {
		t.Fatal(err)
	}
	return list.ContractDigest
}

// TestObserveEvents checks the one Event each entry point reports: its Op, its Code
// (one of the Code constants, CheckCall's own error as tool_call_refused), the tools
// and bytes served and the catalog version read, and that messages left to the host
// and notifications report none.
func TestObserveEvents(t *testing.T) {
	ctx := context.Background()
	cat := newCatalog(t, sampleTools()...)
	digest := catalogDigest(t, cat)
	store := newStore(t, allow("alice", "model_search", "models:read"), allow("alice", "model_get"), allow("*", "dataset_search"))
	log := &eventLog{}
	refuse := errors.New("host says no")
	d := newDiscoverer(cat, store, func(o *discovery.Options) {
		o.Observe = log.observe
		o.CheckCall = func(_ context.Context, _ grants.Principal, tool string, _ json.RawMessage) error {
			if tool == "model_get" {
				return refuse
			}
			return nil
		}
	})
	off := newDiscoverer(cat, forbiddenReader{t}, func(o *discovery.Options) { o.Enabled = false; o.Observe = log.observe })
	noCatalog := newDiscoverer(nil, store, func(o *discovery.Options) { o.Observe = log.observe })
	noGrants := newDiscoverer(cat, nil, func(o *discovery.Options) { o.Observe = log.observe })

	page, err := d.Discover(ctx, alice, discovery.Request{Query: "model search", Limit: 1})
	if err != nil || page.NextCursor == "" {
		t.Fatalf("Discover = %v, %v; want a first page with a cursor", page, err)
	}
	log.take()
	pageBytes := func(r *discovery.Result) int { b, _ := r.MarshalJSON(); return len(b) }
	list, err := d.ListTools(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	listBytes := 0
	for _, tool := range list.Tools {
		listBytes += len(tool)
	}
	offList, err := off.ListTools(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	log.take()
	offBytes := 0
	for _, tool := range offList.Tools {
		offBytes += len(tool)
	}
	msg := discoverMsg("7", "model search", 1, "")

	type want struct {
		op      observe.Op
		code    discovery.Code
		tools   int
		bytes   int
		catalog string
	}
	cases := []struct {
		name string
		run  func() any // what the entry point returned, to size the served result
		want []want
	}{
		{"Discover", func() any {
			r, _ := d.Discover(ctx, alice, discovery.Request{Query: "model search", Limit: 1})
			return r
		},
			[]want{{observe.OpDiscover, "", 1, pageBytes(page), digest}}},
		{"Discover invalid params", func() any { d.Discover(ctx, alice, discovery.Request{}); return nil },
			[]want{{observe.OpDiscover, discovery.CodeInvalidParams, 0, 0, ""}}},
		{"Discover invalid cursor", func() any {
			d.Discover(ctx, alice, discovery.Request{Query: "model search", Limit: 2, Cursor: page.NextCursor})
			return nil
		}, []want{{observe.OpDiscover, discovery.CodeInvalidCursor, 0, 0, digest}}},
		{"DiscoverParams", func() any {
			r, _ := d.DiscoverParams(ctx, alice, json.RawMessage(`{"query":"model search","limit":1}`))
			return r
		},
			[]want{{observe.OpDiscover, "", 1, -1, digest}}},
		{"DiscoverTool", func() any {
			r, _ := d.DiscoverTool(ctx, alice, json.RawMessage(`{"query":"model search","limit":1}`))
			return r
		},
			[]want{{observe.OpDiscoverTool, "", 1, -1, digest}}},
		{"DiscoverFramed", func() any {
			r, _ := d.DiscoverFramed(ctx, alice, json.RawMessage(`{"query":"model search","limit":1}`), 3)
			return r
		},
			[]want{{observe.OpDiscover, "", 1, -1, digest}}},
		{"DiscoverFramed invalid request", func() any { d.DiscoverFramed(ctx, alice, json.RawMessage(`{"query":"x"}`), -1); return nil },
			[]want{{observe.OpDiscover, discovery.CodeInvalidRequest, 0, 0, ""}}},
		{"HandleJSONRPC", func() any { r, _ := d.HandleJSONRPC(ctx, alice, msg); return r },
			[]want{{observe.OpDiscover, "", 1, -1, digest}}},
		{"AppendJSONRPC after a prefix", func() any {
			r, _ := d.AppendJSONRPC(ctx, []byte("prefix"), alice, msg)
			return r[len("prefix"):]
		}, []want{{observe.OpDiscover, "", 1, -1, digest}}},
		{"HandleJSONRPC refused", func() any { r, _ := d.HandleJSONRPC(ctx, alice, discoverMsg("8", "model search", 1, "junk")); return r },
			[]want{{observe.OpDiscover, discovery.CodeInvalidCursor, 0, -1, digest}}},
		{"HandleJSONRPC invalid request", func() any {
			r, _ := d.HandleJSONRPC(ctx, alice, []byte(`{"jsonrpc":"2.0","id":{},"method":"multillm.tools.discover","params":{"query":"x"}}`))
			return r
		}, []want{{observe.OpDiscover, discovery.CodeInvalidRequest, 0, -1, ""}}},
		{"HandleJSONRPC another method", func() any {
			d.HandleJSONRPC(ctx, alice, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			return nil
		}, nil},
		{"HandleJSONRPC notification", func() any {
			d.HandleJSONRPC(ctx, alice, []byte(`{"jsonrpc":"2.0","method":"multillm.tools.discover","params":{"query":"x"}}`))
			return nil
		}, nil},
		{"ListTools", func() any { d.ListTools(ctx, alice); return nil },
			[]want{{observe.OpList, "", len(list.Tools), listBytes, digest}}},
		{"AuthorizeTool", func() any { d.AuthorizeTool(ctx, alice, "model_search"); return nil },
			[]want{{observe.OpAuthorizeTool, "", 0, 0, digest}}},
		{"AuthorizeTool not granted", func() any { d.AuthorizeTool(ctx, alice, "billing_usage"); return nil },
			[]want{{observe.OpAuthorizeTool, discovery.CodeToolNotGranted, 0, 0, digest}}},
		{"AuthorizeToolThen and its call", func() any {
			call, err := d.AuthorizeToolThen(ctx, alice, "model_search")
			if err == nil {
				call(ctx, alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)})
			}
			return nil
		}, []want{{observe.OpAuthorizeTool, "", 0, 0, digest}, {observe.OpAuthorizeCall, "", 0, 0, digest}}},
		{"AuthorizeCall", func() any {
			d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)})
			return nil
		}, []want{{observe.OpAuthorizeCall, "", 0, 0, digest}}},
		{"AuthorizeCall invalid arguments", func() any {
			d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":1}`)})
			return nil
		}, []want{{observe.OpAuthorizeCall, discovery.CodeInvalidArguments, 0, 0, digest}}},
		{"AuthorizeCall contract pin", func() any {
			d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", ContractPin: "other"})
			return nil
		}, []want{{observe.OpAuthorizeCall, discovery.CodeContractChanged, 0, 0, digest}}},
		{"AuthorizeCall refused by CheckCall", func() any {
			d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_get", Arguments: json.RawMessage(`{"text":"x"}`)})
			return nil
		}, []want{{observe.OpAuthorizeCall, discovery.CodeCallRefused, 0, 0, digest}}},
		{"off: Discover", func() any { off.Discover(ctx, alice, discovery.Request{Query: "x"}); return nil },
			[]want{{observe.OpDiscover, discovery.CodeMethodNotFound, 0, 0, ""}}},
		{"off: HandleJSONRPC", func() any { off.HandleJSONRPC(ctx, alice, msg); return nil }, nil},
		{"off: ListTools", func() any { off.ListTools(ctx, alice); return nil },
			[]want{{observe.OpList, "", cat.Len(), offBytes, digest}}},
		{"off: AuthorizeCall", func() any { off.AuthorizeCall(ctx, alice, discovery.Call{Tool: "anything"}); return nil },
			[]want{{observe.OpAuthorizeCall, "", 0, 0, ""}}},
		{"no catalog", func() any { noCatalog.ListTools(ctx, alice); return nil },
			[]want{{observe.OpList, discovery.CodeCatalogUnavailable, 0, 0, ""}}},
		{"no grants", func() any { noGrants.Discover(ctx, alice, discovery.Request{Query: "x"}); return nil },
			[]want{{observe.OpDiscover, discovery.CodeGrantsUnavailable, 0, 0, digest}}},
	}
	for _, c := range cases {
		served := c.run()
		got := log.take()
		if len(got) != len(c.want) {
			t.Errorf("%s: %d events %+v, want %d", c.name, len(got), got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if w.bytes == -1 { // the size of what the entry point returned
				switch s := served.(type) {
				case *discovery.Result:
					w.bytes = pageBytes(s)
				case []byte:
					w.bytes = len(s)
				}
			}
			e := got[i]
			if e.Op != w.op || e.Code != string(w.code) || e.Tools != w.tools || e.Bytes != w.bytes || e.CatalogDigest != w.catalog {
				t.Errorf("%s: event %d = {%s %q tools %d bytes %d catalog %q}, want {%s %q tools %d bytes %d catalog %q}",
					c.name, i, e.Op, string(e.Code), e.Tools, e.Bytes, e.CatalogDigest, w.op, string(w.code), w.tools, w.bytes, w.catalog)
			}
			if e.Duration <= 0 {
				t.Errorf("%s: event %d duration = %v, want > 0", c.name, i, e.Duration)
			}
		}
	}
}

// canary marks every byte a client or host supplies in TestObserveNoContent.
const canary = "zq9canary"

// failingSource is a CatalogSource whose error carries text.
type failingSource struct{}

func (failingSource) Catalog(context.Context) (*discovery.Catalog, error) {
	return nil, errors.New(canary + " catalog store text")
}

// canaryRun drives every entry point with canary queries, arguments, cursors, tool
// names, ids, contract pins and principals, through every kind of outcome: served,
// allowed, and each refusal (params, cursor, arguments, grant, contract, CheckCall's
// own error and a Code of the host's making, storage and catalog failures, switch off).
// obs receives the events of every Discoverer it builds.
func canaryRun(t *testing.T, obs func(context.Context, observe.Event)) {
	ctx := context.Background()
	who := grants.Principal{ID: canary + "-principal", Scopes: []string{canary + ":scope"}}
	tools := append(sampleTools(), toolDef(canary+"_tool", "Search the "+canary+" registry."))
	cat := newCatalog(t, tools...)
	store := newStore(t, allow(who.ID, "model_search"), allow(who.ID, "model_get"), allow(who.ID, "model_tag"),
		allow(who.ID, canary+"_tool"), allow("*", "dataset_search"))
	check := func(_ context.Context, _ grants.Principal, tool string, args json.RawMessage) error {
		switch tool {
		case "model_get":
			return errors.New(canary + " host refusal for " + string(args))
		case "model_tag":
			return discovery.Code(canary + "_code")
		}
		return nil
	}
	build := func(edit func(*discovery.Options)) *discovery.Discoverer {
		return newDiscoverer(cat, store, func(o *discovery.Options) {
			o.Observe, o.CheckCall = obs, check
			if edit != nil {
				edit(o)
			}
		})
	}
	d := build(nil)
	off := build(func(o *discovery.Options) { o.Enabled = false })
	broken := build(func(o *discovery.Options) {
		o.Grants = readerFunc(func(context.Context, string) (*grants.Snapshot, error) {
			return nil, errors.New(canary + " storage text")
		})
	})
	noCatalog := build(func(o *discovery.Options) { o.Catalog = failingSource{} })

	queries := []string{canary + " search", canary + " registry model", canary + "\x00control", strings.Repeat(canary, 80)}
	cursors := []string{"", canary + "cursor", "AAAA" + canary}
	var first *discovery.Result
	for _, q := range queries {
		for _, cur := range cursors {
			req := discovery.Request{Query: q, Limit: 1, Cursor: cur}
			if r, err := d.Discover(ctx, who, req); err == nil && first == nil && r.NextCursor != "" {
				first = r
			}
			params, _ := json.Marshal(map[string]any{"query": q, "limit": 1, "cursor": cur, "_meta": canary})
			d.DiscoverParams(ctx, who, params)
			d.DiscoverTool(ctx, who, params)
			d.DiscoverFramed(ctx, who, params, 12)
			d.DiscoverFramed(ctx, who, params, -1)
			d.HandleJSONRPC(ctx, who, discoverMsg(`"`+canary+`-id"`, q, 1, cur))
			d.AppendJSONRPC(ctx, []byte(canary), who, discoverMsg("1", q, 1, cur))
			d.HandleJSONRPC(ctx, who, []byte(`{"jsonrpc":"2.0","id":{"`+canary+`":1},"method":"multillm.tools.discover","params":{"query":"x"}}`))
			d.DiscoverParams(ctx, who, json.RawMessage(`{"query":"x","`+canary+`":1}`))
			broken.Discover(ctx, who, req)
			noCatalog.Discover(ctx, who, req)
			off.Discover(ctx, who, req)
		}
	}
	if first == nil {
		t.Fatal("no canary query found a page with a next cursor")
	}
	// A real cursor replayed for another query: invalid_cursor.
	d.Discover(ctx, who, discovery.Request{Query: canary + " other", Limit: 1, Cursor: first.NextCursor})
	d.Discover(ctx, who, discovery.Request{Query: queries[0], Limit: 1, Cursor: first.NextCursor})

	for _, dd := range []*discovery.Discoverer{d, off, broken, noCatalog} {
		dd.ListTools(ctx, who)
	}
	calls := []discovery.Call{
		{Tool: "model_search", Arguments: json.RawMessage(`{"text":"` + canary + `"}`)},       // allowed
		{Tool: "model_search", Arguments: json.RawMessage(`{"` + canary + `":"x","text":1}`)}, // invalid_arguments
		{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`), ContractPin: canary + "-pin"},
		{Tool: canary + "_unknown", Arguments: json.RawMessage(`{"text":"` + canary + `"}`)}, // tool_not_granted
		{Tool: canary + "_tool", Arguments: json.RawMessage(`{"text":"` + canary + `"}`)},    // allowed, a canary name
		{Tool: "model_get", Arguments: json.RawMessage(`{"text":"` + canary + `"}`)},         // CheckCall's own error
		{Tool: "model_tag", Arguments: json.RawMessage(`{"text":"` + canary + `"}`)},         // a Code of the host's making
		{Tool: "billing_usage", Arguments: json.RawMessage(`{"text":"` + canary + `"}`)},     // not granted
	}
	for _, c := range calls {
		for _, dd := range []*discovery.Discoverer{d, off, broken, noCatalog} {
			dd.AuthorizeTool(ctx, who, c.Tool)
			dd.AuthorizeCall(ctx, who, c)
			if call, err := dd.AuthorizeToolThen(ctx, who, c.Tool); err == nil {
				call(ctx, who, c)
			}
		}
	}
}

// TestObserveNoContent feeds canary text through every entry point and outcome and
// finds it in no Event: an Event never carries a query, arguments, a cursor, a tool
// name, an id, a contract pin, a principal, storage or host error text (SPEC ERR-2,
// ERR-4).
func TestObserveNoContent(t *testing.T) {
	log := &eventLog{}
	canaryRun(t, log.observe)
	events := log.take()
	ops, codes := map[observe.Op]bool{}, map[discovery.Code]bool{}
	for _, e := range events {
		if s := fmt.Sprintf("%#v", e); strings.Contains(strings.ToLower(s), canary) {
			t.Errorf("an event carries client or host text: %s", s)
		}
		ops[e.Op], codes[discovery.Code(e.Code)] = true, true
	}
	// The run reached every kind of decision and outcome it means to.
	for _, op := range []observe.Op{observe.OpDiscover, observe.OpDiscoverTool, observe.OpList, observe.OpAuthorizeTool, observe.OpAuthorizeCall} {
		if !ops[op] {
			t.Errorf("no %s event", op)
		}
	}
	for _, c := range []discovery.Code{"", discovery.CodeInvalidParams, discovery.CodeInvalidCursor, discovery.CodeInvalidRequest,
		discovery.CodeInvalidArguments, discovery.CodeToolNotGranted, discovery.CodeContractChanged, discovery.CodeCallRefused,
		discovery.CodeInternal, discovery.CodeGrantsUnavailable, discovery.CodeCatalogUnavailable, discovery.CodeMethodNotFound} {
		if !codes[c] {
			t.Errorf("no event with code %q", string(c))
		}
	}
	t.Logf("%d events, %d ops, %d codes", len(events), len(ops), len(codes))
}

// TestObservePanic checks that an observer that panics changes no answer: every entry
// point returns what a Discoverer without an observer returns, and the next request is
// served.
func TestObservePanic(t *testing.T) {
	ctx := context.Background()
	cat := newCatalog(t, sampleTools()...)
	store := newStore(t, allow("alice", "model_search"), allow("*", "dataset_search"))
	calls := 0
	panicking := newDiscoverer(cat, store, func(o *discovery.Options) {
		o.Observe = func(context.Context, observe.Event) { calls++; panic("observer bug") }
	})
	plain := newDiscoverer(cat, store, nil)
	for _, d := range []*discovery.Discoverer{panicking, plain} {
		d.Discover(ctx, alice, discovery.Request{Query: "model", Limit: 1}) // warm the caches alike
	}
	outcome := func(d *discovery.Discoverer) string {
		var b strings.Builder
		r, err := d.Discover(ctx, alice, discovery.Request{Query: "search", Limit: 1})
		fmt.Fprintf(&b, "discover %d %v|", len(r.Tools), err)
		_, err = d.Discover(ctx, alice, discovery.Request{})
		fmt.Fprintf(&b, "invalid %v|", err)
		resp, status := d.HandleJSONRPC(ctx, alice, discoverMsg("1", "search", 1, ""))
		fmt.Fprintf(&b, "rpc %d %d|", status, len(resp))
		l, err := d.ListTools(ctx, alice)
		fmt.Fprintf(&b, "list %d %v|", len(l.Tools), err)
		fmt.Fprintf(&b, "tool %v %v|", d.AuthorizeTool(ctx, alice, "model_search"), d.AuthorizeTool(ctx, alice, "model_get"))
		fmt.Fprintf(&b, "call %v|", d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":1}`)}))
		call, err := d.AuthorizeToolThen(ctx, alice, "model_search")
		fmt.Fprintf(&b, "then %v %v", err, call(ctx, alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)}))
		return b.String()
	}
	want := outcome(plain)
	calls = 0
	if got := outcome(panicking); got != want {
		t.Errorf("with a panicking observer:\n got %s\nwant %s", got, want)
	}
	if calls != 9 {
		t.Errorf("the observer was called %d times, want 9 (one per decision)", calls)
	}
}

// TestObserveUnsetAllocs checks what an entry point's hook costs in allocations: none
// when no observer is set (AuthorizeTool with the switch off does nothing else), two
// (the span and the context carrying it) when one is.
func TestObserveUnsetAllocs(t *testing.T) {
	ctx := context.Background()
	cat := newCatalog(t, sampleTools()...)
	for _, c := range []struct {
		observe func(context.Context, observe.Event)
		want    float64
	}{{nil, 0}, {func(context.Context, observe.Event) {}, 2}} {
		d := newDiscoverer(cat, forbiddenReader{t}, func(o *discovery.Options) { o.Enabled = false; o.Observe = c.observe })
		got := testing.AllocsPerRun(100, func() {
			if err := d.AuthorizeTool(ctx, alice, "model_search"); err != nil {
				t.Fatal(err)
			}
		})
		if got != c.want {
			t.Errorf("AuthorizeTool, switch off, observer set %v: %v allocations, want %v", c.observe != nil, got, c.want)
		}
	}
}

// TestObserveContext checks that the observer receives the context the entry point was
// given, for trace correlation.
func TestObserveContext(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "request-7")
	var got []any
	d := newDiscoverer(newCatalog(t, sampleTools()...), newStore(t, allow("alice", "model_search")), func(o *discovery.Options) {
		o.Observe = func(ctx context.Context, _ observe.Event) { got = append(got, ctx.Value(key{})) }
	})
	d.Discover(ctx, alice, discovery.Request{Query: "model"})
	d.HandleJSONRPC(ctx, alice, discoverMsg("1", "model", 1, ""))
	d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search"})
	if len(got) != 3 || got[0] != "request-7" || got[1] != "request-7" || got[2] != "request-7" {
		t.Errorf("observer contexts carry %v, want request-7 three times", got)
	}
}

// TestObserveConcurrentSwap lists tools from several goroutines while the catalog
// version is swapped, and checks that each event names the version its own decision
// read (the one its ListResult carries): for -race, since a window this short rarely
// catches a shared "last version read" (TestObserveNestedCatalog does, every time).
func TestObserveConcurrentSwap(t *testing.T) {
	type slot struct{}
	versions := []*discovery.Catalog{newCatalog(t, sampleTools()...), newCatalog(t, sampleTools()[:5]...)}
	digests := map[*discovery.Catalog]string{}
	for _, c := range versions {
		digests[c] = catalogDigest(t, c)
	}
	var src discovery.SwappableCatalog
	src.Store(versions[0])
	d := newDiscoverer(&src, newStore(t, allow("*", "model_search")), func(o *discovery.Options) {
		o.Observe = func(ctx context.Context, e observe.Event) {
			*ctx.Value(slot{}).(*observe.Event) = e // each request's own slot
		}
	})
	stop := make(chan struct{})
	var swapper sync.WaitGroup
	swapper.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
				src.Store(versions[i%2])
			}
		}
	})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			var got observe.Event
			ctx := context.WithValue(context.Background(), slot{}, &got)
			for range 500 {
				res, err := d.ListTools(ctx, alice)
				if err != nil {
					t.Error(err)
					return
				}
				if want := digests[res.Catalog]; got.CatalogDigest != want || got.Op != observe.OpList {
					t.Errorf("event %s catalog %s, want list of %s", got.Op, got.CatalogDigest, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	swapper.Wait()
}

// alternating is a CatalogSource that answers its versions in turn, one per read.
type alternating struct {
	mu       sync.Mutex
	versions []*discovery.Catalog
	next     int
}

func (a *alternating) Catalog(context.Context) (*discovery.Catalog, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.versions[a.next%len(a.versions)]
	a.next++
	return c, nil
}

// TestObserveNestedCatalog runs a decision inside another (a CheckCall that lists
// tools) while each reads a different catalog version, and checks that each event
// names its own decision's version: the outer call's is not the inner list's, read
// after it.
func TestObserveNestedCatalog(t *testing.T) {
	v0, v1 := newCatalog(t, sampleTools()...), newCatalog(t, sampleTools()[:5]...)
	src := &alternating{versions: []*discovery.Catalog{v0, v1}}
	log := &eventLog{}
	var d *discovery.Discoverer
	d = newDiscoverer(src, newStore(t, allow("*", "model_search")), func(o *discovery.Options) {
		o.Observe = log.observe
		o.CheckCall = func(ctx context.Context, p grants.Principal, _ string, _ json.RawMessage) error {
			_, err := d.ListTools(ctx, p)
			return err
		}
	})
	if err := d.AuthorizeCall(context.Background(), alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{"text":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	got := log.take()
	want := []string{string(observe.OpList) + " " + catalogDigest(t, v1), string(observe.OpAuthorizeCall) + " " + catalogDigest(t, v0)}
	if len(got) != 2 || string(got[0].Op)+" "+got[0].CatalogDigest != want[0] || string(got[1].Op)+" "+got[1].CatalogDigest != want[1] {
		t.Errorf("events %+v, want %v", got, want)
	}
}
