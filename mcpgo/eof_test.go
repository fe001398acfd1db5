package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/mcpgo"
)

// answered returns how many times each id was answered in out, newline-delimited.
func answered(out []byte) map[string]int {
	ids := map[string]int{}
	for _, l := range bytes.Split(out, []byte("\n")) {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(l, &r) == nil && r.ID != nil && r.Method == "" {
			ids[string(r.ID)]++
		}
	}
	return ids
}

// Every request read before the input ends is answered before Listen returns:
// discover answers, tools/list, pings and the tool calls mcp-go queues for its
// workers, which it drops (its context cancelled) once its input ends. The input
// ends right after the last request, many times over.
func TestStdioEOFAnswersEveryRequest(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	for round := range 60 {
		var b strings.Builder
		b.WriteString(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"eof","version":"0"}}}` + "\n")
		b.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		want := []string{`"init"`}
		for i := range 10 {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":"d%d","method":"%s","params":{"query":"weather"}}`+"\n", i, f.d.Method())
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":"l%d","method":"tools/list"}`+"\n", i)
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":"p%d","method":"ping"}`+"\n", i)
			want = append(want, fmt.Sprintf(`"d%d"`, i), fmt.Sprintf(`"l%d"`, i), fmt.Sprintf(`"p%d"`, i))
		}
		for i := range 10 { // last: the calls mcp-go queues for its workers
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":"c%d","method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`+"\n", i)
			want = append(want, fmt.Sprintf(`"c%d"`, i))
		}
		var out bytes.Buffer
		ctx := mcpgo.WithPrincipal(context.Background(), bob)
		if err := f.a.Listen(ctx, server.NewStdioServer(f.server), strings.NewReader(b.String()), &out); err != nil {
			t.Fatalf("Listen: %v", err)
		}
		ids := answered(out.Bytes())
		var missing []string
		for _, id := range want {
			if ids[id] != 1 {
				missing = append(missing, fmt.Sprintf("%s×%d", id, ids[id]))
			}
		}
		if len(missing) > 0 {
			t.Fatalf("round %d: answers lost or doubled at the end of input: %v", round, missing)
		}
	}
}

// A request whose id is the id of a request mcp-go has not answered yet is refused
// with invalid_request and that id (two answers with one id could not be told apart),
// and the request in flight still gets its answer; once answered, its id is free.
func TestStdioDuplicateIDInFlight(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	started, release := make(chan struct{}, 1), make(chan struct{})
	f.server.AddTool(mcp.NewTool("weather_get", mcp.WithString("city")), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		<-release
		return mcp.NewToolResultText("ran"), nil
	})
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), bob))
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`)
	<-started
	for _, dup := range []struct{ msg, id string }{
		{`{"jsonrpc":"2.0","id":7,"method":"ping"}`, "7"},
		{`{"jsonrpc":"2.0","id":7.0,"method":"tools/list"}`, "7.0"},
	} {
		if got, want := string(c.call(dup.msg, dup.id)), `{"jsonrpc":"2.0","id":`+dup.id+`,"error":{"code":-32600,"message":"invalid_request","data":{"error":"invalid_request","status":400}}}`; got != want {
			t.Errorf("%s while id 7 is in flight: %s, want %s", dup.msg, got, want)
		}
	}
	close(release)
	if got := string(c.await("7")); !strings.Contains(got, `"text":"ran"`) {
		t.Errorf("the call in flight answered %s, want its result", got)
	}
	if got := string(c.call(`{"jsonrpc":"2.0","id":7,"method":"ping"}`, "7")); !strings.Contains(got, `"result":{}`) {
		t.Errorf("ping 7 after the call was answered: %s", got)
	}
}

// The end of input does not wait on a request whose handler waits on the client (a
// call of the server's, which can never be answered once the input has ended):
// Listen returns promptly.
func TestStdioEOFDoesNotWaitOnTheClient(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	started := make(chan struct{}, 1)
	f.server.AddTool(mcp.NewTool("weather_get", mcp.WithString("city")), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		_, err := f.server.RequestRoots(ctx, mcp.ListRootsRequest{})
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("ran"), nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- f.a.Listen(mcpgo.WithPrincipal(context.Background(), bob), server.NewStdioServer(f.server), inR, outW)
		outW.Close()
	}()
	go io.Copy(io.Discard, outR)
	io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"eof","version":"0"}}}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`+"\n")
	<-started
	time.Sleep(50 * time.Millisecond) // the roots/list call goes out
	inW.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Listen did not return within 10 s of the end of input")
	}
}

// The end of input waits for the answers owed for a bounded time only: a handler that
// returns only when its context is cancelled (which mcp-go does once it sees the end)
// must not keep Listen, and the process, alive. The limit (Options.DrainLimit) is
// shortened here.
func TestStdioEOFDrainBounded(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true, drain: 300 * time.Millisecond})
	started := make(chan struct{}, 1)
	f.server.AddTool(mcp.NewTool("weather_get", mcp.WithString("city")), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- f.a.Listen(mcpgo.WithPrincipal(context.Background(), bob), server.NewStdioServer(f.server), inR, outW)
		outW.Close()
	}()
	go io.Copy(io.Discard, outR)
	io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"eof","version":"0"}}}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`+"\n")
	<-started
	inW.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second): // under the 10 s default: Options.DrainLimit is honoured
		t.Fatal("Listen did not return within 5 s of the end of input: the drain waited on a handler that never returns")
	}
}

// A response the client sends that answers no call of mcp-go's is dropped, as JSON-RPC
// wants (mcp-go answered an error response with method_not_found), and the session
// goes on; a response to mcp-go's own call (roots/list here) reaches it.
func TestStdioStrayResponse(t *testing.T) {
	f := newFixture(t, fixtureOptions{enabled: true})
	f.server.AddTool(mcp.NewTool("weather_get", mcp.WithString("city")), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		roots, err := f.server.RequestRoots(ctx, mcp.ListRootsRequest{})
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(fmt.Sprintf("ran with %d roots", len(roots.Roots))), nil
	})
	c := f.listen(t, mcpgo.WithPrincipal(context.Background(), bob))
	c.call(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"raw","version":"0"}}}`, `"init"`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"` + canary + `"}}`)
	c.send(`{"jsonrpc":"2.0","id":6,"result":{"x":"` + canary + `"}}`)
	if got := string(c.call(`{"jsonrpc":"2.0","id":"p","method":"ping"}`, `"p"`)); got != `{"jsonrpc":"2.0","id":"p","result":{}}` {
		t.Errorf("ping after stray responses: %s", got)
	}
	c.mu.Lock()
	stray := len(c.got)
	c.mu.Unlock()
	if stray != 0 {
		t.Errorf("the stray responses were answered: %q", c.got)
	}
	// The call's roots/list request goes out; the client answers it.
	c.send(`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`)
	var rootsID json.RawMessage
	for rootsID == nil {
		b, err := c.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(b, &m) == nil && m.Method == "roots/list" {
			rootsID = m.ID
		}
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(rootsID) + `,"result":{"roots":[{"uri":"file:///a"}]}}`)
	if got := string(c.await(`"c"`)); !strings.Contains(got, "ran with 1 roots") {
		t.Errorf("the call answered %s, want it to have the client's roots", got)
	}
}
