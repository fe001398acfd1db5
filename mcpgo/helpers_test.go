package mcpgo_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpgo"
)

// The test catalog and principals, shared with the mcpsdk adapter's tests
// (internal/adaptertest).
var (
	alice     = adaptertest.Alice
	bob       = adaptertest.Bob
	testTools = adaptertest.Tools
	testRows  = adaptertest.Rows
	// wantAliceTools are alice's authorised tools, in mcp-go's tools/list order (by name).
	wantAliceTools = adaptertest.AliceTools
)

// fixture is one mcp-go server with the adapter, and what the test looks inside.
type fixture struct {
	cat     *discovery.Catalog
	d       *discovery.Discoverer
	a       *mcpgo.Adapter
	server  *server.MCPServer
	reads   *countingReader
	handled sync.Map // tool name → number of handler calls (*atomic.Int64)
}

type fixtureOptions struct {
	enabled   bool
	principal mcpgo.PrincipalFunc // nil: mcpgo.PrincipalFromContext
	tool      string              // discovery tool name
	serverOpt []server.ServerOption
	drain     time.Duration     // Options.DrainLimit; 0: the default
	tools     []json.RawMessage // the tools mcp-go registers; nil: testTools()
	reader    grants.Reader     // nil: an in-memory store of testRows
}

// countingReader counts grant reads (SPEC FLAG-2: none while off).
type countingReader struct {
	grants.Reader
	n atomic.Int64
}

func (r *countingReader) ReadGrants(ctx context.Context, id string) (*grants.Snapshot, error) {
	r.n.Add(1)
	return r.Reader.ReadGrants(ctx, id)
}

func newFixture(t testing.TB, o fixtureOptions) *fixture {
	t.Helper()
	f, err := buildFixture(o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// buildFixture registers every test tool with mcp-go, builds the catalog from the
// server (CatalogFromServer) and puts the adapter in front.
func buildFixture(o fixtureOptions) (*fixture, error) {
	f := &fixture{}
	f.server = server.NewMCPServer("test", "v0", o.serverOpt...)
	tools := o.tools
	if tools == nil {
		tools = testTools()
	}
	for _, def := range tools {
		var tool mcp.Tool
		if err := json.Unmarshal(def, &tool); err != nil {
			return nil, err
		}
		var raw struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		json.Unmarshal(def, &raw)
		tool.InputSchema, tool.RawInputSchema = mcp.ToolInputSchema{}, raw.InputSchema
		name := tool.Name
		f.server.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			v, _ := f.handled.LoadOrStore(name, new(atomic.Int64))
			v.(*atomic.Int64).Add(1)
			return mcp.NewToolResultText("ran " + name), nil
		})
	}
	cat, err := mcpgo.CatalogFromServer(f.server, nil)
	if err != nil {
		return nil, fmt.Errorf("CatalogFromServer: %v", err)
	}
	mem := grants.NewMemory()
	for _, r := range testRows() {
		if _, err := mem.Put(context.Background(), r); err != nil {
			return nil, err
		}
	}
	var r grants.Reader = mem
	if o.reader != nil {
		r = o.reader
	}
	f.cat, f.reads = cat, &countingReader{Reader: r}
	f.d = discovery.New(&discovery.Options{Enabled: o.enabled, Catalog: cat, Grants: f.reads})
	f.a = mcpgo.New(f.d, &mcpgo.Options{Principal: o.principal, DiscoveryTool: o.tool, DrainLimit: o.drain})
	return f, nil
}

func (f *fixture) calls(name string) int64 {
	v, ok := f.handled.Load(name)
	if !ok {
		return 0
	}
	return v.(*atomic.Int64).Load()
}

// rawStdio is a client speaking newline-delimited JSON-RPC to the fixture's server
// running under Adapter.Listen in this process, so tests see the exact bytes.
type rawStdio struct {
	t    testing.TB
	w    io.WriteCloser
	r    *bufio.Reader
	mu   sync.Mutex
	got  map[string][]byte // responses by id, raw
	done chan error
}

// listen runs the fixture's server under Listen with ctx's principal until the test
// ends. mcp-go's stdio session is one per process: tests using it do not run in
// parallel.
func (f *fixture) listen(t testing.TB, ctx context.Context) *rawStdio {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(ctx)
	c := &rawStdio{t: t, w: inW, r: bufio.NewReaderSize(outR, 1<<20), got: map[string][]byte{}, done: make(chan error, 1)}
	go func() {
		c.done <- f.a.Listen(ctx, server.NewStdioServer(f.server), inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Error("Listen did not return after its input ended")
		}
	})
	return c
}

func (c *rawStdio) initialize() {
	c.t.Helper()
	c.call(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, `"init"`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func (c *rawStdio) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// next sends line and returns the next response, without its newline, skipping the
// server's requests and notifications: for a session with one call at a time.
func (c *rawStdio) next(line string) []byte {
	c.t.Helper()
	c.send(line)
	for {
		b, err := c.r.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("read: %v", err)
		}
		var env struct{ Method string }
		if json.Unmarshal(b, &env) == nil && env.Method == "" {
			return b[:len(b)-1]
		}
	}
}

// call sends line and returns the raw response whose id is the JSON text id ("null"
// for the answer to a message whose id could not be read).
func (c *rawStdio) call(line, id string) []byte {
	c.t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.WriteString(c.w, line+"\n")
	}()
	b := c.await(id)
	<-done
	return b
}

// await returns the next response with id.
func (c *rawStdio) await(id string) []byte {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		if b, ok := c.got[id]; ok {
			delete(c.got, id)
			c.mu.Unlock()
			return b
		}
		c.mu.Unlock()
		if time.Now().After(deadline) {
			c.t.Fatalf("no response to id %s", id)
		}
		b, err := c.r.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("read (waiting for id %s): %v", id, err)
		}
		b = b[:len(b)-1]
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(b, &env) != nil || env.Method != "" {
			continue // a notification or a server request
		}
		if env.ID == nil {
			env.ID = json.RawMessage("null")
		}
		c.mu.Lock()
		c.got[string(env.ID)] = b
		c.mu.Unlock()
	}
}

// rpcErr is a JSON-RPC error object as the wire carries it; decodeError reads it.
type rpcErr = adaptertest.RPCError

var decodeError = adaptertest.DecodeError

// wantError fails unless resp is the adapter's error of code.
func wantError(t testing.TB, resp []byte, code discovery.Code) {
	t.Helper()
	e := decodeError(t, resp)
	if e == nil || e.Message != string(code) || e.Data.Error != string(code) || e.Code != code.JSONRPCCode() || e.Data.Status != code.Status() {
		t.Errorf("response %s, want the error %s", resp, code)
	}
}
