package mcpsdk

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
)

// ioTransport replaces an *mcp.StdioTransport or *mcp.IOTransport: the same
// newline-delimited JSON-RPC over the same reader and writer, read through the front.
type ioTransport struct {
	a       *Adapter
	r       io.ReadCloser
	w       io.WriteCloser
	maxLine int
}

func (t *ioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &ioConn{
		a:      t.a,
		rc:     t.r,
		out:    &lockedWriter{w: t.w},
		lines:  make(chan line),
		closed: make(chan struct{}),
		sem:    make(chan struct{}, maxInFlight),
	}
	// A cap <= 0 is rpcwire.DefaultMaxLine, the SDK's default: never a line unbounded.
	go c.readLines(rpcwire.NewLineReader(t.r, t.maxLine))
	return c, nil
}

// ioConn is the connection of an ioTransport. Messages the front answers never reach
// the SDK; the SDK's writes and the front's answers go out whole, one at a time,
// through one writer.
type ioConn struct {
	a         *Adapter
	rc        io.Closer
	out       *lockedWriter
	lines     chan line
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
	sem       chan struct{}
	initSent  bool     // an initialize request went to the SDK (Read's goroutine only)
	calls     inflight // the front's decisions on the calls passed on
}

// line is one newline-delimited message, or the end of input.
type line struct {
	b       []byte
	tooLong bool
	err     error
}

// readLines reads lines until the input ends; a goroutine of its own so that Read and
// Close never wait on a blocked reader (as in the SDK's ioConn).
func (c *ioConn) readLines(lr *rpcwire.LineReader) {
	for {
		b, tooLong, err := lr.Next()
		select {
		case c.lines <- line{b, tooLong, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read returns the next message for the SDK; every message before it that the front
// answered has been answered.
func (c *ioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l line
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			c.calls.Wait(ctx, c.closed, c.a.opts.DrainLimit) // every request read gets its answer first
			return nil, l.err
		}
		if l.tooLong {
			c.out.writeLine(discovery.AppendJSONRPCError(nil, nil, discovery.CodeMessageTooLarge))
			continue
		}
		resp, act, _, env := c.a.screen(ctx, nil, l.b, nil)
		switch act {
		case answered, refused:
			if len(resp) > 0 {
				c.out.writeLine(resp)
			}
			continue
		case discover:
			c.discover(ctx, env, l.b)
			continue
		}
		if c.beforeInitialize(env) {
			// The SDK refuses it too, but logs the method name the client sent.
			c.out.writeLine(discovery.AppendJSONRPCError(nil, env.id, discovery.CodeInternal))
			continue
		}
		msg, err := jsonrpc.DecodeMessage(l.b)
		if err != nil { // the front and the SDK disagree: refuse, never end the session
			c.out.writeLine(discovery.AppendJSONRPCError(nil, env.id, discovery.CodeInvalidRequest))
			continue
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if !c.calls.attach(&c.a.pending, m, env.call) {
				// Its id is in flight: the SDK would drop it without an answer.
				c.out.writeLine(discovery.AppendJSONRPCError(nil, env.id, discovery.CodeInvalidRequest))
				continue
			}
		case *jsonrpc.Response:
			c.calls.Replied(m.ID)
		}
		return msg, nil
	}
}

// beforeInitialize reports a call the SDK would refuse because no initialize came
// first: any method but those MCP allows before it, without the per-request protocol
// version of SEP-2575 (which needs no initialize).
func (c *ioConn) beforeInitialize(env envelope) bool {
	if c.initSent || !env.hasMethod {
		return false
	}
	switch env.method {
	case "initialize":
		c.initSent = true
		return false
	case "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "server/discover":
		return false
	}
	return env.id != nil && !sessionless(env.params)
}

// sessionless reports params whose _meta carries a protocol version (SEP-2575): the
// SDK serves such a call without initialize.
func sessionless(params []byte) bool {
	if len(params) == 0 || params[0] != '{' {
		return false
	}
	found := false
	members(params, func(key string, val []byte) bool {
		if key == "_meta" {
			_, found = stringParam(val, "io.modelcontextprotocol/protocolVersion")
		}
		return !found
	})
	return found
}

// discover answers a discover message, concurrently with the SDK's work up to
// maxInFlight at a time, then in line (backpressure).
func (c *ioConn) discover(ctx context.Context, env envelope, msg []byte) {
	end := c.calls.Begin() // counted before Read goes on, so the end of input waits for it
	rpcwire.GoBounded(c.sem, func() {
		defer end()
		if resp, _ := c.a.answerDiscover(ctx, nil, env, msg, nil); len(resp) > 0 {
			c.out.writeLine(resp)
		}
	})
}

// Write writes msg as one line; a response's error that could quote the client is
// replaced by its content-free form first (SPEC ERR-2).
func (c *ioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.calls.done(&c.a.pending, msg)
	if err := ctx.Err(); err != nil {
		return err
	}
	msg = cleanMessage(msg)
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return errors.New("mcpsdk: encoding a message failed")
	}
	return c.out.writeLine(data)
}

func (c *ioConn) Close() error {
	c.closeOnce.Do(func() {
		c.calls.close(&c.a.pending)
		close(c.closed)
		c.closeErr = errors.Join(c.rc.Close(), c.out.close())
	})
	return c.closeErr
}

func (c *ioConn) SessionID() string { return "" }

// lockedWriter writes whole lines, one at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

// writeLine writes b, an error response fitted to 64 KiB first (rpcwire.FitError: one
// whose id would make it longer is invalid_request with a null id).
func (w *lockedWriter) writeLine(b []byte) error {
	b, _ = rpcwire.FitError(b)
	w.mu.Lock()
	defer w.mu.Unlock()
	b = append(b, '\n') // b is the caller's: its spare capacity is free to use
	_, err := w.w.Write(b)
	return err
}

func (w *lockedWriter) close() error {
	if w.w == nil {
		return nil
	}
	return w.w.Close()
}

// stdio is the reader and writer of an mcp.StdioTransport.
func stdio() (io.ReadCloser, io.WriteCloser) { return os.Stdin, nopWriteCloser{os.Stdout} }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
