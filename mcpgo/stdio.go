package mcpgo

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
)

// maxInFlight bounds the discover requests one stdio connection answers concurrently;
// past it, the connection answers the next one before reading further (backpressure).
const maxInFlight = 16

// ServeStdio serves s on the process's stdin and stdout through the adapter's front,
// until stdin ends or the process receives SIGINT or SIGTERM: mcp-go's
// server.ServeStdio with discovery. opts configure mcp-go's StdioServer.
func (a *Adapter) ServeStdio(s *server.MCPServer, opts ...server.StdioOption) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ss := server.NewStdioServer(s)
	for _, o := range opts {
		o(ss)
	}
	return a.Listen(ctx, ss, os.Stdin, os.Stdout)
}

// Listen runs ss (mcp-go's stdio server) on in and out with the adapter's front
// between them (see the package doc): the front reads each newline-delimited message
// first, answers the discover method, the discovery tool and every refusal itself and
// hands the rest to ss; on the way out it narrows tools/list results and rewrites
// mcp-go's error responses content-free. The principal is the PrincipalFunc's, called
// with ctx (so WithPrincipal(ctx, p) with the default PrincipalFunc). Listen returns
// when in ends (nil) or ctx is done. While the switch is off it is ss.Listen(ctx, in,
// out) (SPEC FLAG-2). It returns Check's error at once, having read nothing.
func (a *Adapter) Listen(ctx context.Context, ss *server.StdioServer, in io.Reader, out io.Writer) error {
	if !a.d.Enabled() {
		return ss.Listen(ctx, in, out)
	}
	if err := a.Check(ctx); err != nil {
		return err
	}
	c := &stdioConn{a: a, ctx: ctx, out: out, sem: make(chan struct{}, maxInFlight)}
	pr, pw := io.Pipe()
	go c.readLoop(rpcwire.NewLineReader(in, a.opts.MaxLineBytes), pw)
	err := ss.Listen(ctx, pr, &sdkWriter{c: c})
	pr.Close() // the read loop stops at its next message
	c.mu.Lock()
	c.closed = true // what the read loop answers from now on goes nowhere
	c.mu.Unlock()
	return err
}

// stdioConn is one stdio connection: the front's answers and mcp-go's messages go out
// whole, one line at a time, through out.
type stdioConn struct {
	a   *Adapter
	ctx context.Context
	sem chan struct{}

	mu     sync.Mutex // guards out and closed
	out    io.Writer
	closed bool // Listen returned

	// What the connection still owes the client (the requests passed on, to their
	// method; the discover answers being written) and mcp-go's calls awaiting the
	// client, by id as mcp-go writes it (idKey): the end of input waits for it.
	owed rpcwire.Owed[string, string]
}

// readLoop reads messages until in ends, answering what the front answers and passing
// the rest to mcp-go through sdk; it closes sdk at the end so that mcp-go's Listen
// returns.
func (c *stdioConn) readLoop(lr *rpcwire.LineReader, sdk *io.PipeWriter) {
	for {
		line, tooLong, err := lr.Next()
		if err != nil {
			// mcp-go cancels its requests and drops its queued tool calls once its input
			// ends: every request read is answered first.
			c.owed.Wait(c.ctx, nil, c.a.opts.DrainLimit)
			sdk.Close()
			return
		}
		if tooLong {
			c.writeLine(appendError(nil, nil, discovery.CodeMessageTooLarge))
			continue
		}
		v := c.a.screen(c.ctx, line, nil)
		switch v.act {
		case answered:
			if len(v.resp) > 0 {
				c.writeLine(v.resp)
			}
			continue
		case discover:
			c.discover(v.env, line)
			continue
		}
		switch {
		case v.env.id != nil && v.env.hasMethod:
			if !c.owed.Track(idKey(v.env.id), v.env.method) {
				// Its id is in flight: two answers with one id could not be told apart.
				c.writeLine(appendError(nil, v.env.id, discovery.CodeInvalidRequest))
				continue
			}
		case v.env.id != nil:
			// A response: mcp-go's only if it answers a call of mcp-go's. Any other is
			// dropped, as JSON-RPC wants (mcp-go would answer an error response).
			if !c.owed.Replied(idKey(v.env.id)) {
				continue
			}
		}
		if _, err := sdk.Write(append(line, '\n')); err != nil {
			return // mcp-go stopped reading
		}
	}
}

// discover answers a discover message, concurrently with mcp-go's work up to
// maxInFlight at a time, then in line (backpressure).
func (c *stdioConn) discover(env envelope, msg []byte) {
	end := c.owed.Begin() // counted before the read loop goes on: the end of input waits for it
	rpcwire.GoBounded(c.sem, func() {
		defer end()
		if resp, _ := c.a.answerDiscover(c.ctx, env, msg, nil); len(resp) > 0 {
			c.writeLine(resp)
		}
	})
}

// idKey is id as mcp-go writes it back: decoded into an any and encoded again.
func idKey(id []byte) string {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return string(id)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// writeLine writes b, an error response fitted to 64 KiB first (rpcwire.FitError: one
// whose id would make it longer is invalid_request with a null id).
func (c *stdioConn) writeLine(b []byte) error {
	b, _ = rpcwire.FitError(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return io.ErrClosedPipe
	}
	_, err := c.out.Write(append(b, '\n'))
	return err
}

// outgoing is the front's rewrite of one message mcp-go writes: a tools/list response
// narrowed, an error that is not the library's made content-free (SPEC ERR-2).
func (c *stdioConn) outgoing(msg []byte) []byte {
	m, ok := rpcwire.ExactMembers(msg, []string{"id", "result", "method"})
	var method string
	switch {
	case ok && m["method"] == nil && m["id"] != nil:
		method, _ = c.owed.Settle(idKey(m["id"])) // forgotten, answered either way
	case ok && m["id"] != nil && !bytes.Equal(m["id"], []byte("null")):
		c.owed.Call(idKey(m["id"]))
	}
	if clean, changed := cleanError(msg, method == "tools/call"); changed {
		return clean
	}
	switch {
	case m["result"] == nil:
	case method == "tools/list":
		return c.a.narrowList(c.ctx, msg)
	case method == "tools/call" || method == "tasks/result":
		if clean, changed := cleanCallResult(m["id"], m["result"]); changed {
			return clean
		}
	}
	return msg
}

// sdkWriter is the writer mcp-go's stdio server writes to: each complete line is
// rewritten by the front and written whole.
type sdkWriter struct {
	c   *stdioConn
	mu  sync.Mutex
	buf []byte
}

func (w *sdkWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := bytes.TrimSuffix(w.buf[:i], []byte("\r"))
		if len(bytes.TrimSpace(line)) > 0 {
			if err := w.c.writeLine(w.c.outgoing(bytes.Clone(line))); err != nil {
				return 0, err
			}
		}
		w.buf = append(w.buf[:0], w.buf[i+1:]...)
	}
}
