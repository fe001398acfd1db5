package mcpsdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/adaptertest"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

// The test catalog and principals, shared with the mcpgo adapter's tests
// (internal/adaptertest).
var (
	alice     = adaptertest.Alice
	bob       = adaptertest.Bob
	testTools = adaptertest.Tools
	testRows  = adaptertest.Rows
)

// fixture is one server with the adapter, and what the test needs to look inside.
type fixture struct {
	cat     *discovery.Catalog
	d       *discovery.Discoverer
	a       *mcpsdk.Adapter
	server  *mcp.Server
	reads   *countingReader
	handled sync.Map // tool name → number of handler calls (*atomic.Int64)
}

type fixtureOptions struct {
	enabled    bool
	principal  grants.Principal
	tool       string // discovery tool name
	tools      []json.RawMessage
	pageSize   int // SDK tools/list page size; 0 default
	checkCall  func(ctx context.Context, p grants.Principal, tool string, args json.RawMessage) error
	principal2 mcpsdk.PrincipalFunc
	reader     grants.Reader // nil: an in-memory store of testRows
	// setCacheable is the SDK server's ServerOptions.SetCacheable; nil leaves the SDK's
	// defaults (ttlMs 0, cacheScope public).
	setCacheable func(context.Context, mcp.Request, *mcp.Cacheable)
	logger       *slog.Logger  // the SDK server's logger; nil: none
	drain        time.Duration // Options.DrainLimit; 0: the default
}

// countingReader counts grant reads (SPEC FLAG-2: none while off).
type countingReader struct {
	grants.Reader
	n atomic.Int64
}

// NonBlocking declares what the wrapped Reader declares (grants.NonBlockingReader): the
// count adds no wait.
func (r *countingReader) NonBlocking() bool {
	nb, ok := r.Reader.(grants.NonBlockingReader)
	return ok && nb.NonBlocking()
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

func buildFixture(o fixtureOptions) (*fixture, error) {
	tools := o.tools
	if tools == nil {
		tools = testTools()
	}
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		return nil, fmt.Errorf("NewCatalog: %v", err)
	}
	mem := grants.NewMemory()
	for _, r := range testRows() {
		if _, err := mem.Put(context.Background(), r); err != nil {
			return nil, fmt.Errorf("Put: %v", err)
		}
	}
	var r grants.Reader = mem
	if o.reader != nil {
		r = o.reader
	}
	f := &fixture{cat: cat, reads: &countingReader{Reader: r}}
	f.d = discovery.New(&discovery.Options{Enabled: o.enabled, Catalog: cat, Grants: f.reads, CheckCall: o.checkCall})
	pf := o.principal2
	if pf == nil {
		pf = mcpsdk.StaticPrincipal(o.principal)
	}
	f.a = mcpsdk.New(f.d, &mcpsdk.Options{Principal: pf, DiscoveryTool: o.tool, DrainLimit: o.drain})
	f.server = newSDKServerOpts(cat, &mcp.ServerOptions{PageSize: o.pageSize, SetCacheable: o.setCacheable, Logger: o.logger}, &f.handled)
	f.a.Install(f.server)
	return f, nil
}

// newSDKServer registers every catalog tool with a handler that names the tool.
func newSDKServer(cat *discovery.Catalog, pageSize int, handled *sync.Map, logger *slog.Logger) *mcp.Server {
	return newSDKServerOpts(cat, &mcp.ServerOptions{PageSize: pageSize, Logger: logger}, handled)
}

// newSDKServerOpts is newSDKServer with the SDK server's options.
func newSDKServerOpts(cat *discovery.Catalog, opts *mcp.ServerOptions, handled *sync.Map) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, opts)
	for _, name := range cat.Names() {
		def, _ := cat.Tool(name)
		var tool mcp.Tool
		if err := json.Unmarshal(def, &tool); err != nil {
			panic(err) // canonical bytes of the catalog
		}
		var raw struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		json.Unmarshal(def, &raw)
		tool.InputSchema = raw.InputSchema
		s.AddTool(&tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if handled != nil {
				v, _ := handled.LoadOrStore(name, new(atomic.Int64))
				v.(*atomic.Int64).Add(1)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran " + name}}}, nil
		})
	}
	return s
}

func (f *fixture) calls(name string) int64 {
	v, ok := f.handled.Load(name)
	if !ok {
		return 0
	}
	return v.(*atomic.Int64).Load()
}

// connect connects a go-sdk client to the fixture's server over an in-memory transport
// wrapped by the adapter.
func (f *fixture) connect(t testing.TB) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := f.server.Connect(ctx, f.a.Transport(st), nil)
	if err != nil {
		t.Fatalf("server Connect: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	return connectClient(t, ct)
}

func connectClient(t testing.TB, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil)
	if err := mcp.AddSendingCustomMethod[*discoverParams, *discoverResult](c, discovery.DefaultMethod); err != nil {
		t.Fatalf("AddSendingCustomMethod: %v", err)
	}
	cs, err := c.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("client Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// discoverParams and discoverResult let the go-sdk client send the discover method.
type discoverParams struct {
	mcp.ParamsBase
	Query  string `json:"query"`
	Limit  int    `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

type discoverResult struct {
	mcp.ResultBase
	Tools      []json.RawMessage `json:"tools"`
	NextCursor string            `json:"nextCursor,omitempty"`
	TTLMs      *int              `json:"ttlMs"` // a pointer, so that an absent member shows
	CacheScope string            `json:"cacheScope"`
}

func discover(ctx context.Context, cs *mcp.ClientSession, p *discoverParams) (*discoverResult, error) {
	return mcp.CallCustomMethod[*discoverParams, *discoverResult](ctx, cs, discovery.DefaultMethod, p)
}

func toolName(t testing.TB, def json.RawMessage) string {
	t.Helper()
	var v struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(def, &v); err != nil {
		t.Fatalf("tool definition: %v", err)
	}
	return v.Name
}

// rawClient speaks newline-delimited JSON-RPC to a server connected through the
// adapter's Transport, so tests can look at the exact bytes on the wire.
type rawClient struct {
	t   testing.TB
	w   io.Writer
	r   *bufio.Reader
	mu  sync.Mutex
	got map[string][]byte // responses by id, raw
}

func (f *fixture) rawConnect(t testing.TB) *rawClient {
	t.Helper()
	c1, c2 := net.Pipe()
	ss, err := f.server.Connect(context.Background(), f.a.Transport(&mcp.IOTransport{Reader: c1, Writer: c1}), nil)
	if err != nil {
		t.Fatalf("server Connect: %v", err)
	}
	t.Cleanup(func() { ss.Close(); c2.Close() })
	rc := &rawClient{t: t, w: c2, r: bufio.NewReaderSize(c2, 1<<20), got: map[string][]byte{}}
	rc.call(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, `"init"`)
	rc.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return rc
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// call sends line and returns the raw response whose id is the JSON text id.
func (c *rawClient) call(line, id string) []byte {
	c.t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.send(line)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		if b, ok := c.got[id]; ok {
			delete(c.got, id)
			c.mu.Unlock()
			<-done
			return b
		}
		c.mu.Unlock()
		if time.Now().After(deadline) {
			c.t.Fatalf("no response to id %s", id)
		}
		b, err := c.r.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("read: %v", err)
		}
		b = b[:len(b)-1]
		var env struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(b, &env) != nil || env.ID == nil {
			continue // a notification
		}
		c.mu.Lock()
		c.got[string(env.ID)] = b
		c.mu.Unlock()
	}
}

// rpcErr is a JSON-RPC error object as the wire carries it; decodeError reads it.
type rpcErr = adaptertest.RPCError

var decodeError = adaptertest.DecodeError

var _ = strings.Contains
