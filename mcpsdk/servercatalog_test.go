package mcpsdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

type addIn struct {
	A int `json:"a" jsonschema:"the first addend"`
	B int `json:"b" jsonschema:"the second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

type echoIn struct {
	Text string `json:"text"`
}

// typedServer is a go-sdk server whose tools are registered with the typed mcp.AddTool,
// as go-sdk's own everything-server registers them: inferred input and output schemas.
func typedServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two integers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo a text back."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "simple_text", Description: "Answer a fixed text."},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "This is a simple text response for testing."}}}, nil, nil
		})
	return s
}

// addEmptyTool adds a typed tool (an echoIn input) answering an empty result.
func addEmptyTool(s *mcp.Server, name, description string) {
	mcp.AddTool(s, &mcp.Tool{Name: name, Description: description},
		func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
}

// allowAll grants every name to every principal.
func allowAll(t *testing.T, names ...string) *grants.Memory {
	t.Helper()
	m := grants.NewMemory()
	for _, n := range names {
		if _, err := m.Put(context.Background(), grants.Row{Principal: grants.AnyPrincipal, Tool: n, Effect: grants.Allow, Revision: 1}); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// serve installs an adapter over d on s (unless d is nil) and returns a connected client.
func serve(t *testing.T, s *mcp.Server, d *discovery.Discoverer) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	var tr mcp.Transport = st
	if d != nil {
		a := mcpsdk.New(d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(grants.Principal{ID: "ann"})})
		a.Install(s)
		tr = a.Transport(st)
	}
	if _, err := s.Connect(context.Background(), tr, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func listed(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func newServerCatalog(t *testing.T, s *mcp.Server, opts *mcpsdk.ServerCatalogOptions) *mcpsdk.ServerCatalog {
	t.Helper()
	sc, err := mcpsdk.NewServerCatalog(context.Background(), s, opts)
	if err != nil {
		t.Fatalf("NewServerCatalog: %v", err)
	}
	t.Cleanup(func() { sc.Close() })
	return sc
}

// The catalog holds exactly the server's tools, typed ones included, and with every
// tool granted the adapter built on it answers tools/list and tools/call as the bare
// server does: the same tools, schemas and results.
func TestServerCatalogTypedTools(t *testing.T) {
	ctx := context.Background()
	bare := serve(t, typedServer(), nil)

	s := typedServer()
	sc := newServerCatalog(t, s, nil)
	cat, err := sc.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cat.Names(), []string{"add", "echo", "simple_text"}; !slices.Equal(sortedCopy(got), want) {
		t.Fatalf("catalog names = %v, want %v", got, want)
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: sc, Grants: allowAll(t, "add", "echo", "simple_text")})
	cs := serve(t, s, d)

	if got, want := listed(t, cs), listed(t, bare); !slices.Equal(got, want) {
		t.Errorf("tools/list through the adapter = %v, bare server %v", got, want)
	}
	bareList, _ := bare.ListTools(ctx, nil)
	list, _ := cs.ListTools(ctx, nil)
	for i := range list.Tools {
		got, _ := json.Marshal(list.Tools[i].InputSchema)
		want, _ := json.Marshal(bareList.Tools[i].InputSchema)
		if !jsonEqual(got, want) {
			t.Errorf("tool %s: input schema through the adapter %s, bare %s", list.Tools[i].Name, got, want)
		}
	}
	for _, call := range []*mcp.CallToolParams{
		{Name: "add", Arguments: map[string]any{"a": 2, "b": 3}},
		{Name: "echo", Arguments: map[string]any{"text": "hi"}},
		{Name: "simple_text", Arguments: map[string]any{}},
	} {
		got, err := cs.CallTool(ctx, call)
		if err != nil {
			t.Fatalf("%s through the adapter: %v", call.Name, err)
		}
		want, err := bare.CallTool(ctx, call)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if !jsonEqual(g, w) {
			t.Errorf("%s: result through the adapter %s, bare %s", call.Name, g, w)
		}
	}
	// Arguments are validated against the schema the SDK inferred.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": "two", "b": 3}})
	if err != nil || !res.IsError {
		t.Errorf("add with a string argument: %v, %+v; want an isError result", err, res)
	}
}

// Tools added to or removed from the server reach the catalog without a call: the
// SDK's list_changed notification rebuilds it. Refresh makes it current at once.
func TestServerCatalogFollowsChanges(t *testing.T) {
	ctx := context.Background()
	s := typedServer()
	sc := newServerCatalog(t, s, nil)
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: sc, Grants: allowAll(t, "add", "echo", "simple_text", "late")})
	cs := serve(t, s, d)

	first, _ := sc.Catalog(ctx)
	mcp.AddTool(s, &mcp.Tool{Name: "late", Description: "Added after start."},
		func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil, nil
		})
	waitFor(t, "the added tool in tools/list", func() bool { return slices.Contains(listed(t, cs), "late") })
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "late", Arguments: map[string]any{"text": "x"}})
	if err != nil || res.IsError {
		t.Fatalf("calling the added tool: %v %+v", err, res)
	}
	second, _ := sc.Catalog(ctx)
	if second == first {
		t.Fatal("the catalog version did not change")
	}

	s.RemoveTools("echo")
	waitFor(t, "the removed tool gone from the catalog", func() bool {
		cat, _ := sc.Catalog(ctx)
		_, ok := cat.Tool("echo")
		return !ok
	})
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Message != string(discovery.CodeToolNotGranted) {
		t.Errorf("calling the removed tool: %v, want tool_not_granted", err)
	}

	// Refresh needs no notification: after Close nothing follows changes, yet Refresh
	// still lists the server's tools.
	sc.Close()
	s.RemoveTools("late")
	if err := sc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	cat, _ := sc.Catalog(ctx)
	if _, ok := cat.Tool("late"); ok {
		t.Error("after Refresh the catalog still holds a removed tool")
	}
}

// A tool discovery.NewCatalog refuses, added later, is reported to OnError and the
// previous version stays; the same tool at start fails NewServerCatalog.
func TestServerCatalogRefusedTool(t *testing.T) {
	ctx := context.Background()
	var reported atomic.Value
	s := typedServer()
	sc := newServerCatalog(t, s, &mcpsdk.ServerCatalogOptions{OnError: func(err error) { reported.Store(err) }})
	before, _ := sc.Catalog(ctx)
	// A name over 128 characters is refused by NewCatalog (SPEC CONTRACT-3).
	bad := &mcp.Tool{Name: longName(), InputSchema: json.RawMessage(`{"type":"object"}`)}
	s.AddTool(bad, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	waitFor(t, "OnError", func() bool { return reported.Load() != nil })
	var ce *discovery.CatalogError
	if err := reported.Load().(error); !errors.As(err, &ce) {
		t.Errorf("OnError got %v, want a *discovery.CatalogError", err)
	}
	if after, _ := sc.Catalog(ctx); after != before {
		t.Error("a refused rebuild replaced the catalog")
	}
	if _, err := mcpsdk.NewServerCatalog(ctx, s, nil); !errors.As(err, &ce) {
		t.Errorf("NewServerCatalog over a refused tool: %v, want a *discovery.CatalogError", err)
	}
}

func longName() string {
	b := make([]byte, 300)
	for i := range b {
		b[i] = 'x'
	}
	return string(b)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// The watching session answers the server's keep-alive pings, so a server with
// KeepAlive keeps it open (the same session, not a replacement) and changes are still
// followed. It runs in a synctest bubble: the SDK's 10 ms ping deadline then expires
// only once every goroutine is idle, so a loaded machine cannot make an answer late.
func TestServerCatalogKeepAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := mcp.NewServer(&mcp.Implementation{Name: "ka", Version: "v1"}, &mcp.ServerOptions{KeepAlive: 20 * time.Millisecond})
		addEmptyTool(s, "echo", "Echo.")
		sc := newServerCatalog(t, s, nil)
		watching := slices.Collect(s.Sessions())
		time.Sleep(300 * time.Millisecond) // many ping intervals
		if got := slices.Collect(s.Sessions()); len(got) != 1 || len(watching) != 1 || got[0] != watching[0] {
			t.Fatalf("the server has %d sessions after the pings (%d before), want the same watching one", len(got), len(watching))
		}
		addEmptyTool(s, "late", "Late.")
		waitFor(t, "the added tool", func() bool {
			cat, _ := sc.Catalog(ctx)
			_, ok := cat.Tool("late")
			return ok
		})
	})
}

// When the server closes the watching session (as it does when a keep-alive ping is
// answered past its deadline on a loaded machine), the catalog opens another and keeps
// following changes: a tool added afterwards reaches the catalog without Refresh.
func TestServerCatalogReconnects(t *testing.T) {
	ctx := context.Background()
	s := typedServer()
	sc := newServerCatalog(t, s, nil)
	first := slices.Collect(s.Sessions())
	if len(first) != 1 {
		t.Fatalf("%d sessions, want the watching one", len(first))
	}
	first[0].Close()
	addEmptyTool(s, "late", "Late.")
	waitFor(t, "the tool added after the session closed", func() bool {
		cat, _ := sc.Catalog(ctx)
		_, ok := cat.Tool("late")
		return ok
	})
	waitFor(t, "a new watching session", func() bool {
		got := slices.Collect(s.Sessions())
		return len(got) == 1 && got[0] != first[0]
	})
	// The new session follows later changes too.
	s.RemoveTools("late")
	waitFor(t, "the removed tool gone from the catalog", func() bool {
		cat, _ := sc.Catalog(ctx)
		_, ok := cat.Tool("late")
		return !ok
	})
	// After Close no session is reopened.
	sc.Close()
	if n := len(slices.Collect(s.Sessions())); n != 0 {
		t.Errorf("%d sessions after Close, want none", n)
	}
}

type noteIn struct {
	F float32 `json:"f,omitempty"`
	N int     `json:"n,omitempty"`
	T string  `json:"t,omitempty"`
}

// SPEC ERR-2: arguments valid for the schema a typed tool's SDK inferred ("integer",
// "number") that its Go type cannot hold (an integer past int64, a number past
// float32) fail the SDK's decoding after the adapter validated them; the SDK's error,
// which quotes up to 32 bytes of the arguments from the failing value on, must not
// reach the tool result: the result says "invalid arguments" and nothing else.
func TestTypedToolDecodeErrorContentFree(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "v1"}, nil)
	ran := false
	mcp.AddTool(s, &mcp.Tool{Name: "note", Description: "Keep a note."},
		func(_ context.Context, _ *mcp.CallToolRequest, in noteIn) (*mcp.CallToolResult, any, error) {
			ran = true
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "kept"}}}, nil, nil
		})
	sc := newServerCatalog(t, s, nil)
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: sc, Grants: allowAll(t, "note")})
	cs := serve(t, s, d)
	for _, args := range []json.RawMessage{
		json.RawMessage(`{"n":1e30}`),
		json.RawMessage(`{"n":123456789012345678901234567890,"t":"x"}`),
		json.RawMessage(`{"f":1e300,"t":"` + canary + `"}`), // the error quotes "1e+300,\"t\":\"<canary>\"}"
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "note", Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		b, _ := json.Marshal(res)
		if !res.IsError || strings.Contains(string(b), canary) || len(res.Content) != 1 ||
			res.Content[0].(*mcp.TextContent).Text != "invalid arguments" {
			t.Errorf("%s: result %s, want isError with the text \"invalid arguments\" only", args, b)
		}
	}
	if ran {
		t.Error("the tool ran")
	}
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "note", Arguments: map[string]any{"n": 1, "t": "x"}}); err != nil || res.IsError {
		t.Errorf("a call it can hold: %v, %+v", err, res)
	}
}

// A server that closes every watching session soon after it opens is met with a
// doubling pause, not a busy loop: over 1 s of closing each new session 25 ms after it
// appears, the ServerCatalog opens a handful (10, 20, 40... ms apart; without the pause
// about 40), and it stays usable. (The 25 ms keep the close clear of go-sdk's
// Server.Connect, which lists a session before it is ready: closing one in that window
// panics inside the SDK.)
func TestServerCatalogReconnectBacksOff(t *testing.T) {
	s := typedServer()
	sc := newServerCatalog(t, s, nil)
	seen := map[*mcp.ServerSession]time.Time{}
	closed := map[*mcp.ServerSession]bool{}
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		for ss := range s.Sessions() {
			if at, ok := seen[ss]; !ok {
				seen[ss] = time.Now()
			} else if !closed[ss] && time.Since(at) >= 25*time.Millisecond {
				closed[ss] = true
				ss.Close()
			}
		}
		time.Sleep(time.Millisecond)
	}
	if len(seen) > 15 {
		t.Errorf("%d watching sessions opened in 1 s of closing each 25 ms after it appears, want at most 15", len(seen))
	}
	waitFor(t, "a watching session again", func() bool {
		return len(slices.Collect(s.Sessions())) == 1
	})
	if _, err := sc.Catalog(context.Background()); err != nil {
		t.Errorf("Catalog: %v", err)
	}
}
