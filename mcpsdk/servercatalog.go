package mcpsdk

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
)

// ServerCatalogOptions configure NewServerCatalog. A nil *ServerCatalogOptions means all
// defaults; NewServerCatalog copies it.
type ServerCatalogOptions struct {
	// Catalog is passed to discovery.NewCatalog for every version; its Previous is set
	// to the current version on each rebuild, so unchanged tools are reused. Nil: the
	// defaults.
	Catalog *discovery.CatalogOptions
	// OnError receives the error of a rebuild after a change that discovery.NewCatalog
	// refused (a *ServerToolError naming the tool, or a *discovery.CatalogError for
	// the whole catalog); the previous version stays in use. Nil: such errors are
	// dropped, and Refresh still returns them.
	OnError func(error)
}

// ServerCatalog is a discovery.CatalogSource built from the tools registered on a go-sdk
// server, mcp.AddTool's typed tools included, so each tool is registered once: on the
// server. It follows the server's tools/list_changed notifications, rebuilding the
// catalog (with CatalogOptions.Previous, so unchanged tools cost a comparison) and
// swapping it in atomically.
//
// It watches through a session of its own on an in-memory transport, which the server
// counts among its sessions, and lists tools by calling the server's receiving method
// handler as it was when NewServerCatalog ran; the adapter's middleware lets these
// listings through untouched, installed before or after, but a host middleware added
// before NewServerCatalog sees them (create the catalog first). A change is seen once
// the SDK sends its notification, 10 ms after the last change of a burst (the catalog
// was current 11 to 11.7 ms after a single RemoveTools, median of 20, 12 to 18 ms at
// worst, on 2 busy cores: go test ./mcpsdk -run TestRemovedToolWindow -v -count=3).
// Until then a new tool is unknown to the catalog and refused
// (tool_not_granted); a removed one is no longer in tools/list, but discover may still
// serve it, and its calls are decided on its last schema: arguments that schema
// accepts answer tool_not_granted (the SDK no longer has the tool), others the
// invalid-arguments result; nothing runs. Call Refresh after
// changing tools to make the catalog current at once, and after every change on a
// server whose ServerOptions.Capabilities turn tools.listChanged off (it then sends no
// notification). The watching session is one of s.Sessions() until Close; it answers
// pings and ignores every other message. When the server closes it (a keep-alive ping
// answered past its deadline under load, say), a new watching session replaces it and
// the catalog is rebuilt, since a change may have gone unnotified meanwhile. It is safe
// for concurrent use.
type ServerCatalog struct {
	list    mcp.MethodHandler // the server's receiving handler beneath any later middleware
	srv     *mcp.Server
	connMu  sync.Mutex // guards ss and conn, replaced on reconnection
	ss      *mcp.ServerSession
	conn    mcp.Connection
	copts   discovery.CatalogOptions
	onError func(error)

	cur     discovery.SwappableCatalog
	mu      sync.Mutex    // serialises rebuilds
	changed chan struct{} // a list_changed notification arrived (capacity 1)
	done    chan struct{} // closed by Close
	closeMu sync.Once
	wg      sync.WaitGroup
}

var _ discovery.CatalogSource = (*ServerCatalog)(nil)

// NewServerCatalog lists the tools registered on s, builds the first catalog version
// from them and starts following changes until Close. It fails when a tool is refused
// by discovery.NewCatalog (a *ServerToolError, which says which tool and wraps the
// *discovery.CatalogError; a refusal of the whole catalog, over its limits, is the
// CatalogError alone) or the session cannot be opened. A nil s answers ErrServerTools,
// a nil ctx an error matching discovery.ErrNilContext, before anything is changed.
func NewServerCatalog(ctx context.Context, s *mcp.Server, opts *ServerCatalogOptions) (*ServerCatalog, error) {
	switch {
	case s == nil:
		return nil, ErrServerTools
	case ctx == nil:
		return nil, discovery.ErrNilContext
	}
	c := &ServerCatalog{srv: s, changed: make(chan struct{}, 1), done: make(chan struct{})}
	if opts != nil {
		if opts.Catalog != nil {
			c.copts = *opts.Catalog
		}
		c.onError = opts.OnError
	}
	// Capture the handler beneath every middleware added later (the adapter's).
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		c.list = next
		return next
	})
	if err := c.connect(ctx); err != nil {
		return nil, err
	}
	if err := c.Refresh(ctx); err != nil {
		c.Close()
		return nil, err
	}
	c.wg.Add(2)
	go c.read()
	go c.rebuild()
	return c, nil
}

// errClosed is connect's error after Close; read stops on it.
var errClosed = errors.New("mcpsdk: the server catalog is closed")

// connect opens a watching session on the server over an in-memory transport and makes
// it current, unless Close has run.
func (c *ServerCatalog) connect(ctx context.Context) error {
	c.connMu.Lock()
	defer c.connMu.Unlock()
	select {
	case <-c.done:
		return errClosed
	default:
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := c.srv.Connect(ctx, st, nil)
	if err != nil {
		return err
	}
	conn, err := ct.Connect(ctx)
	if err != nil {
		ss.Close()
		return err
	}
	c.ss, c.conn = ss, conn
	return nil
}

// session returns the current watching session and its client end.
func (c *ServerCatalog) session() (*mcp.ServerSession, mcp.Connection) {
	c.connMu.Lock()
	defer c.connMu.Unlock()
	return c.ss, c.conn
}

// Catalog returns the current version.
func (c *ServerCatalog) Catalog(ctx context.Context) (*discovery.Catalog, error) {
	return c.cur.Catalog(ctx)
}

// Refresh lists the server's tools now and swaps in the catalog built from them. On
// error the current version stays.
func (c *ServerCatalog) Refresh(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	tools, names, err := c.tools(ctx)
	if err != nil {
		return err
	}
	copts := c.copts
	copts.Previous, _ = c.cur.Catalog(ctx)
	cat, err := discovery.NewCatalog(tools, &copts)
	var ce *discovery.CatalogError
	if errors.As(err, &ce) && ce.Index >= 0 && ce.Index < len(names) {
		return &ServerToolError{Index: ce.Index, Name: names[ce.Index], Err: ce}
	}
	if err != nil {
		return err
	}
	c.cur.Store(cat)
	return nil
}

// A ServerToolError says which of the server's tools NewServerCatalog or Refresh could
// not put in the catalog, and why. Its text holds the position and the reason, not
// the name; Name is there for the host to print (its own configuration, possibly the
// very thing refused: an empty, long or oddly spelled name).
type ServerToolError struct {
	Index int                     // position in the server's tools/list order (by name, from 0)
	Name  string                  // the tool's name as registered on the server
	Err   *discovery.CatalogError // the catalog's refusal: Err.Reason is the rule broken
}

func (e *ServerToolError) Error() string {
	return "mcpsdk: the server's tool " + strconv.Itoa(e.Index) + " (in tools/list order, by name) was refused: " + e.Err.Reason
}

// Unwrap returns the *discovery.CatalogError, so errors.As finds it (and its cause).
func (e *ServerToolError) Unwrap() error { return e.Err }

// ErrServerTools is the error Refresh returns when the server's tools/list handler fails
// or answers something other than a tools/list result: a middleware added before
// NewServerCatalog refused or replaced the listing, or a handler of the host failed.
var ErrServerTools = errors.New("mcpsdk: the server's tools could not be listed")

// tools returns the definitions and names of every tool registered on the server,
// page by page. The listing passes the adapter's middleware untouched (ctx carries
// serverListing), wherever Install put it.
func (c *ServerCatalog) tools(ctx context.Context) (defs []json.RawMessage, names []string, err error) {
	var cursor string
	ss, _ := c.session()
	ctx = context.WithValue(ctx, serverListing{}, true)
	for {
		res, err := c.list(ctx, "tools/list", &mcp.ListToolsRequest{Session: ss, Params: &mcp.ListToolsParams{Cursor: cursor}})
		if err != nil {
			return nil, nil, ErrServerTools
		}
		lr, ok := res.(*mcp.ListToolsResult)
		if !ok || lr == nil {
			return nil, nil, ErrServerTools
		}
		for _, t := range lr.Tools {
			def, err := json.Marshal(t)
			if err != nil || t == nil {
				return nil, nil, ErrServerTools
			}
			defs = append(defs, def)
			names = append(names, t.Name)
		}
		if lr.NextCursor == "" || lr.NextCursor == cursor {
			return defs, names, nil
		}
		cursor = lr.NextCursor
	}
}

// serverListing is the context key of a ServerCatalog's own tools/list, which the
// adapter's middleware passes to the SDK untouched (it is no client's request).
type serverListing struct{}

// read drains the watching session: a tools/list_changed notification schedules a
// rebuild, a request (a keep-alive ping) is answered with an empty result. The session
// never initializes, so go-sdk v1.8.0 counts it as a pre-2026-07-28 session and sends
// it every list_changed without a subscription; TestServerCatalogFollowsChanges fails
// if an SDK upgrade stops doing so. When the session ends before Close, read opens a
// new one and schedules a rebuild, for a change may have been missed meanwhile.
func (c *ServerCatalog) read() {
	defer c.wg.Done()
	ctx := context.Background()
	wait := reconnectWait
	for {
		ss, conn := c.session()
		start := time.Now()
		c.drain(ctx, conn)
		ss.Close() // ended by the server or a failed write; closing again is harmless
		conn.Close()
		// Pause before connecting again, doubling while sessions end (or connecting
		// fails) at once, so a server that keeps closing them is not met by a busy loop.
		if time.Since(start) >= maxReconnectWait {
			wait = reconnectWait
		}
		select {
		case <-c.done:
			return
		case <-time.After(wait):
			wait = min(2*wait, maxReconnectWait)
		}
		err := c.connect(ctx)
		if errors.Is(err, errClosed) {
			return
		}
		if err == nil {
			c.schedule()
		}
	}
}

// reconnectWait and maxReconnectWait bound the pause before read tries again to open a
// watching session after a failed attempt; it doubles on each failure.
const (
	reconnectWait    = 10 * time.Millisecond
	maxReconnectWait = time.Second
)

// drain reads conn until it fails, scheduling a rebuild on each tools/list_changed
// notification and answering each request with an empty result.
func (c *ServerCatalog) drain(ctx context.Context, conn mcp.Connection) {
	for {
		msg, err := conn.Read(ctx)
		if err != nil {
			return
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			continue
		}
		switch {
		case req.Method == "notifications/tools/list_changed":
			c.schedule()
		case req.ID.IsValid():
			if conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}) != nil {
				return
			}
		}
	}
}

// schedule makes a rebuild due, unless one already is.
func (c *ServerCatalog) schedule() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// rebuild runs Refresh for each change until Close.
func (c *ServerCatalog) rebuild() {
	defer c.wg.Done()
	for {
		select {
		case <-c.done:
			return
		case <-c.changed:
			if err := c.Refresh(context.Background()); err != nil && c.onError != nil {
				c.onError(err)
			}
		}
	}
}

// Close stops following changes and closes the watching session; the last version
// stays in use.
func (c *ServerCatalog) Close() error {
	c.closeMu.Do(func() {
		c.connMu.Lock()
		close(c.done)
		c.ss.Close()
		c.conn.Close()
		c.connMu.Unlock()
	})
	c.wg.Wait()
	return nil
}
