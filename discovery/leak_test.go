package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
)

// The canaries of the leak test, one per kind of content that must never reach an
// error text or a log record.
const (
	canaryArg     = "ARGqz7canary"
	canarySchema  = "SCHEMAqz7canary"
	canaryStorage = "STORAGEqz7canary"
	canaryQuery   = "QUERYqz7canary"
	canaryCursor  = "CURSORqz7canary"
)

var canaries = []string{canaryArg, canarySchema, canaryStorage, canaryQuery, canaryCursor}

// SPEC ERR-2, ERR-4: canaries placed in call arguments, schema texts, storage error
// text, the query and the cursor never appear in any error's text, in the JSON-RPC
// error bytes, or in any log record written while the Discoverer runs.
func TestNoContentLeaks(t *testing.T) {
	rec := newLogRecorder()
	old := slog.Default()
	slog.SetDefault(slog.New(rec))
	t.Cleanup(func() { slog.SetDefault(old) })
	ctx := t.Context()

	leaky := toolDefSchema("leaky_tool", "A tool whose schema holds canaries.", map[string]any{
		"type":        "object",
		"description": canarySchema,
		"properties": map[string]any{
			"code": map[string]any{"type": "string", "pattern": "^" + canarySchema + "[0-9]+$", "default": canarySchema},
			"mode": map[string]any{"enum": []any{canarySchema + "-a", canarySchema + "-b"}},
			"n":    map[string]any{"type": "integer", "maximum": 3, "description": canarySchema},
		},
		"required":             []any{"code"},
		"additionalProperties": false,
	})
	unsupported := toolDefSchema("leaky_ref", "Unsupported.", map[string]any{
		"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "#/" + canarySchema}},
	})
	huge := bigTool("huge_"+"dump", "Dump "+canarySchema+" everything.", 70_000)
	cat := newCatalog(t, append(sampleTools(), leaky, unsupported, huge)...)
	store := allGranted(t, cat)
	var errs []error
	add := func(err error) {
		if err == nil {
			t.Errorf("expected a refusal (#%d)", len(errs))
			return
		}
		errs = append(errs, err)
	}
	var wire [][]byte
	handle := func(d *discovery.Discoverer, msg string) {
		resp, status := d.HandleJSONRPC(ctx, alice, []byte(msg))
		if status == 0 {
			t.Errorf("not handled: %.80s", msg)
		}
		wire = append(wire, resp)
	}

	d := newDiscoverer(cat, store, nil)
	// Arguments.
	for _, a := range []string{
		`{"code":"` + canaryArg + `"}`,
		`{"code":"` + canarySchema + `1","mode":"` + canaryArg + `"}`,
		`{"code":"` + canarySchema + `1","` + canaryArg + `":1}`,
		`{"code":"` + canarySchema + `1","n":` + "4" + `,"x":"` + canaryArg + `"}`,
		`{"code":` + canaryArg,
		`{"code":"a","code":"` + canaryArg + `"}`,
		`["` + canaryArg + `"]`,
		`{"code":"` + strings.Repeat(canaryArg, 30000) + `"}`,
	} {
		add(d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "leaky_tool", Arguments: json.RawMessage(a)}))
		add(d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "leaky_ref", Arguments: json.RawMessage(a)}))
		add(d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "no_" + canaryArg, Arguments: json.RawMessage(a)}))
	}
	// Schema too large for a page.
	_, err := d.Discover(ctx, alice, discovery.Request{Query: "huge dump " + canaryQuery})
	add(err)
	handle(d, `{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"huge dump `+canaryQuery+`"}}`)
	// Queries.
	for _, q := range []string{
		canaryQuery + "\u0000",
		strings.Repeat(canaryQuery, 50),
		canaryQuery + "\u0085",
	} {
		_, err := d.Discover(ctx, alice, discovery.Request{Query: q})
		add(err)
		p, _ := json.Marshal(map[string]any{"query": q})
		_, err = d.DiscoverParams(ctx, alice, p)
		add(err)
		handle(d, `{"jsonrpc":"2.0","id":2,"method":"multillm.tools.discover","params":`+string(p)+`}`)
	}
	_, err = d.DiscoverParams(ctx, alice, json.RawMessage(`{"query":"model","`+canaryQuery+`":1}`))
	add(err)
	_, err = d.DiscoverParams(ctx, alice, json.RawMessage(`{"query":"model","limit":"`+canaryQuery+`"}`))
	add(err)
	// Cursors: junk, and a real cursor replayed with another query or principal.
	res, err := d.Discover(ctx, alice, discovery.Request{Query: "model " + canaryQuery, Limit: 1})
	if err != nil || res.NextCursor == "" {
		t.Fatalf("cursor page: %v", err)
	}
	real := res.NextCursor
	for _, c := range []string{canaryCursor, real + canaryCursor, strings.Repeat(canaryCursor, 4)[:44]} {
		_, err := d.Discover(ctx, alice, discovery.Request{Query: "model " + canaryQuery, Limit: 1, Cursor: c})
		add(err)
		handle(d, `{"jsonrpc":"2.0","id":3,"method":"multillm.tools.discover","params":{"query":"model","cursor":"`+c+`"}}`)
	}
	_, err = d.Discover(ctx, alice, discovery.Request{Query: "model " + canaryCursor, Limit: 1, Cursor: real})
	add(err)
	_, err = d.Discover(ctx, grants.Principal{ID: canaryCursor}, discovery.Request{Query: "model " + canaryQuery, Limit: 1, Cursor: real})
	add(err)
	// Storage error text.
	for _, r := range []grants.Reader{
		&grantstest.ErrReader{Err: fmt.Errorf("%w: pq: %s", grants.ErrUnavailable, canaryStorage)},
		&grantstest.ErrReader{Err: errors.New(canaryStorage)},
		&grantstest.FailAfterReader{Base: store, N: 1, Err: errors.New(canaryStorage)},
	} {
		ds := newDiscoverer(cat, r, nil)
		_, err := ds.Discover(ctx, alice, discovery.Request{Query: "model " + canaryQuery})
		add(err)
		_, err = ds.ListTools(ctx, alice)
		add(err)
		add(ds.AuthorizeCall(ctx, alice, discovery.Call{Tool: "leaky_tool", Arguments: json.RawMessage(`{"code":"` + canaryArg + `"}`)}))
		handle(ds, `{"jsonrpc":"2.0","id":4,"method":"multillm.tools.discover","params":{"query":"`+canaryQuery+`"}}`)
	}
	// Catalog errors with canaries in the refused tool.
	_, err = discovery.NewCatalog([]json.RawMessage{json.RawMessage(`{"name":"x","description":"` + canarySchema + `",`)}, nil)
	add(err)
	_, err = discovery.NewCatalog([]json.RawMessage{toolDef("bad "+canarySchema, canarySchema)}, nil)
	add(err)
	// The switch's warning.
	discovery.SwitchFromEnv(func(string) (string, bool) { return canaryQuery, true }, nil)

	if len(errs) < 40 {
		t.Fatalf("only %d refusals collected", len(errs))
	}
	for i, err := range errs {
		texts := []string{err.Error(), fmt.Sprintf("%v|%+v|%s|%q", err, err, err, err), string(discovery.AppendJSONRPCError(nil, json.RawMessage(`1`), err))}
		var e *discovery.Error
		if errors.As(err, &e) {
			texts = append(texts, e.Keyword, e.Path, string(e.Code))
		}
		for _, s := range texts {
			for _, c := range canaries {
				if strings.Contains(s, c) {
					t.Errorf("refusal %d leaks %s: %.200s", i, c, s)
				}
			}
		}
	}
	for i, b := range wire {
		for _, c := range canaries {
			if strings.Contains(string(b), c) {
				t.Errorf("JSON-RPC response %d leaks %s: %.200s", i, c, b)
			}
		}
	}
	logs := rec.all()
	if len(logs) == 0 {
		t.Errorf("no log record captured: the recorder is not wired (SwitchFromEnv must warn)")
	}
	for _, l := range logs {
		for _, c := range canaries {
			if strings.Contains(l, c) {
				t.Errorf("log record leaks %s: %.200s", c, l)
			}
		}
	}
}

// SPEC ERR-4: the Discoverer keeps no query or cursor that shapes a later answer:
// a Discoverer that served many canary queries and a fresh one (same Signer, clock and
// store) answer the next request with the same bytes, and none holds a canary.
func TestNoQueryRetained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { // the bubble's clock stands still: one issue time for both
		ctx := context.Background()
		cat := newCatalog(t, append(sampleTools(), helperTools(20)...)...)
		store := allGranted(t, cat)
		signer := cursor.NewSigner()
		build := func() *discovery.Discoverer {
			return newDiscoverer(cat, store, func(o *discovery.Options) {
				o.RevisionSync = true
				o.Signer = signer
			})
		}
		busy, fresh := build(), build()
		for i := range 200 {
			res, err := busy.Discover(ctx, alice, discovery.Request{Query: fmt.Sprintf("model %s %d", canaryQuery, i), Limit: 2})
			if err == nil && res.NextCursor != "" {
				busy.Discover(ctx, alice, discovery.Request{Query: fmt.Sprintf("model %s %d", canaryQuery, i), Limit: 2, Cursor: res.NextCursor})
			}
		}
		for _, q := range []string{"model helper", "registry"} {
			a, err1 := busy.Discover(ctx, alice, discovery.Request{Query: q, Limit: 3})
			b, err2 := fresh.Discover(ctx, alice, discovery.Request{Query: q, Limit: 3})
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			ab, bb := string(a.AppendJSON(nil)), string(b.AppendJSON(nil))
			if ab != bb {
				t.Errorf("%q: a Discoverer that served earlier queries answers differently from a fresh one", q)
			}
			if strings.Contains(ab, canaryQuery) {
				t.Errorf("%q: a later page carries an earlier query", q)
			}
		}
	})
}
