package discovery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/grantstest"
)

// producers makes every public error code come out of a real path of the Discoverer.
func producers(t *testing.T) map[discovery.Code]func() error {
	ctx := context.Background()
	cat := newCatalog(t, append(sampleTools(),
		toolDefSchema("uses_ref", "Uses a $ref.", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "#/x"}}}),
		bigTool("huge_model_dump", "Dump the whole model registry.", 70_000),
	)...)
	store := allGranted(t, cat)
	on := newDiscoverer(cat, store, nil)
	args := json.RawMessage(`{"text":"x"}`)
	rows := []grants.Row{allow("*", "model_search")}
	return map[discovery.Code]func() error{
		discovery.CodeMethodNotFound: func() error {
			_, err := discovery.New(&discovery.Options{Catalog: cat, Grants: store}).Discover(ctx, alice, discovery.Request{Query: "model"})
			return err
		},
		discovery.CodeInvalidParams: func() error {
			_, err := on.DiscoverParams(ctx, alice, json.RawMessage(`{"query":""}`))
			return err
		},
		discovery.CodeInvalidCursor: func() error {
			_, err := on.Discover(ctx, alice, discovery.Request{Query: "model", Cursor: "junk"})
			return err
		},
		discovery.CodeInvalidArguments: func() error {
			return on.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{}`)})
		},
		discovery.CodeToolNotGranted: func() error {
			return newDiscoverer(cat, newStore(t), nil).AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: args})
		},
		discovery.CodeContractChanged: func() error {
			return on.AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: args, ContractPin: "sha256:00"})
		},
		discovery.CodeGrantsChanged: func() error {
			r := &seqReader{snaps: []*grants.Snapshot{{Revision: 1, Rows: rows}, {Revision: 1}}}
			_, err := newDiscoverer(cat, r, nil).Discover(ctx, alice, discovery.Request{Query: "model"})
			return err
		},
		discovery.CodeSchemaTooLarge: func() error {
			_, err := on.Discover(ctx, alice, discovery.Request{Query: "huge model dump"})
			return err
		},
		discovery.CodeValidationUnavailable: func() error {
			return on.AuthorizeCall(ctx, alice, discovery.Call{Tool: "uses_ref", Arguments: args})
		},
		discovery.CodeGrantsUnavailable: func() error {
			return newDiscoverer(cat, &grantstest.ErrReader{}, nil).AuthorizeCall(ctx, alice, discovery.Call{Tool: "model_search", Arguments: args})
		},
		discovery.CodeCatalogUnavailable: func() error {
			_, err := newDiscoverer(nil, store, nil).ListTools(ctx, alice)
			return err
		},
	}
}

// bigTool returns a tool of about size bytes whose name and description match its words.
func bigTool(name, description string, size int) json.RawMessage {
	props := map[string]any{}
	for i := 0; len(props)*60 < size; i++ {
		props[fmt.Sprintf("field_%05d", i)] = map[string]any{"type": "string", "description": "Padding field of a deliberately large schema."}
	}
	return toolDefSchema(name, description, map[string]any{"type": "object", "properties": props})
}

// SPEC ERR-1: every code has its HTTP status and JSON-RPC code, comes out of a real
// path, matches its Code (and no other) with errors.Is, and is framed on the wire as
// {"code":N,"message":"<code>","data":{"error":"<code>","status":S}}.
func TestErrorCodes(t *testing.T) {
	want := map[discovery.Code]string{ // the code strings ERR-1 names
		discovery.CodeToolNotGranted:        "tool_not_granted",
		discovery.CodeInvalidCursor:         "invalid_cursor",
		discovery.CodeSchemaTooLarge:        "tool_schema_too_large",
		discovery.CodeGrantsChanged:         "tool_grants_changed",
		discovery.CodeValidationUnavailable: "tool_validation_unavailable",
	}
	for c, s := range want {
		if string(c) != s {
			t.Errorf("code constant %q, want %q", c, s)
		}
	}
	prod := producers(t)
	if len(prod) != len(statusOf)-1 {
		t.Fatalf("%d producers for %d codes", len(prod), len(statusOf))
	}
	for code, st := range statusOf {
		if code.Status() != st[0] || code.JSONRPCCode() != st[1] {
			t.Errorf("%s.Status(), JSONRPCCode() = %d, %d, want %d, %d", code, code.Status(), code.JSONRPCCode(), st[0], st[1])
		}
		if code == discovery.CodeInternal {
			continue // only foreign errors map to it: see TestAppendJSONRPCErrorForeign
		}
		err := prod[code]()
		wantCode(t, "produced "+string(code), err, code)
		for other := range statusOf {
			if other != code && errors.Is(err, other) {
				t.Errorf("%s: errors.Is(err, %s) = true", code, other)
			}
		}
		for _, id := range []string{`7`, `"req-1"`, `-3.5`, ``} {
			wid := id
			if wid == "" {
				wid = "null"
			}
			w := fmt.Sprintf(`prefix:{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"%s","data":{"error":"%s","status":%d}}}`, wid, st[1], string(code), string(code), st[0])
			for _, e := range []error{err, code} { // the *Error, and the bare Code
				got := string(discovery.AppendJSONRPCError([]byte("prefix:"), json.RawMessage(id), e))
				if got != w {
					t.Errorf("AppendJSONRPCError(%s, %#v) =\n%s\nwant\n%s", id, e, got, w)
				}
			}
		}
	}
}

// SPEC ERR-1: the codes only the mcpsdk adapter writes (and HandleJSONRPC's
// invalid_request) have their status and JSON-RPC code in the one table; a string that
// is no code is written as an internal error.
func TestAdapterCodes(t *testing.T) {
	for _, tc := range []struct {
		code          discovery.Code
		word          string
		status, code2 int
	}{
		{discovery.CodeParseError, "parse_error", 400, -32700},
		{discovery.CodeInvalidRequest, "invalid_request", 400, -32600},
		{discovery.CodeMessageTooLarge, "message_too_large", 413, -32600},
		{discovery.CodeUnauthenticated, "unauthenticated", 401, -32000},
		{discovery.CodeCallRefused, "tool_call_refused", 403, -32000},
		{discovery.CodeServerError, "server_error", 500, -32000},
		{discovery.Code("no_such_code"), "no_such_code", 500, -32603},
	} {
		if string(tc.code) != tc.word || tc.code.Status() != tc.status || tc.code.JSONRPCCode() != tc.code2 {
			t.Errorf("%q: Status(), JSONRPCCode() = %d, %d, want %q: %d, %d", tc.code, tc.code.Status(), tc.code.JSONRPCCode(), tc.word, tc.status, tc.code2)
		}
		if got := tc.code.Error(); got != "discovery: "+tc.word {
			t.Errorf("%q.Error() = %q", tc.code, got)
		}
	}
}

// SPEC ERR-1: errors.Is matches an *Error against its Code, and a Code against itself,
// through wrapping; errors.As reads the Code of a wrapped bare Code.
func TestErrorIsCode(t *testing.T) {
	cat := newCatalog(t, sampleTools()...)
	err := newDiscoverer(cat, newStore(t), nil).AuthorizeCall(t.Context(), alice, discovery.Call{Tool: "model_search", Arguments: json.RawMessage(`{}`)})
	wrapped := fmt.Errorf("host: %w", err)
	if !errors.Is(wrapped, discovery.CodeToolNotGranted) || errors.Is(wrapped, discovery.CodeContractChanged) {
		t.Errorf("errors.Is(%v, tool_not_granted / contract_changed) = %v / %v, want true / false", wrapped,
			errors.Is(wrapped, discovery.CodeToolNotGranted), errors.Is(wrapped, discovery.CodeContractChanged))
	}
	bare := fmt.Errorf("host: %w", discovery.CodeContractChanged)
	var c discovery.Code
	if !errors.Is(bare, discovery.CodeContractChanged) || !errors.As(bare, &c) || c != discovery.CodeContractChanged {
		t.Errorf("wrapped Code: errors.Is = %v, errors.As = %q", errors.Is(bare, discovery.CodeContractChanged), c)
	}
}

// SPEC ERR-1: the causes stay reachable with errors.Is: the leaf sentinels and a
// cancelled context, which fails closed with 503.
func TestErrorCauses(t *testing.T) {
	cat := newCatalog(t, sampleTools()...)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	d := newDiscoverer(cat, newStore(t, allow("*", "model_search")), nil)
	_, err := d.Discover(ctx, alice, discovery.Request{Query: "model"})
	wantCode(t, "cancelled Discover", err, discovery.CodeGrantsUnavailable)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, grants.ErrUnavailable) {
		t.Errorf("cancelled Discover: %v does not wrap context.Canceled and grants.ErrUnavailable", err)
	}
	_, err = newDiscoverer(cat, &grantstest.TooManyRowsReader{Revision: 1}, nil).ListTools(t.Context(), alice)
	if !errors.Is(err, grants.ErrTooManyRows) {
		t.Errorf("too many rows: %v does not wrap grants.ErrTooManyRows", err)
	}
	_, err = newDiscoverer(cat, &grantstest.MalformedReader{Reason: "effect"}, nil).ListTools(t.Context(), alice)
	if !errors.Is(err, grants.ErrMalformed) {
		t.Errorf("malformed: %v does not wrap grants.ErrMalformed", err)
	}
}

// SPEC ERR-1, DISC-1: HandleJSONRPC frames refusals with the request's id and reports
// their status: invalid params -32602 with status 400, an envelope that is not a
// JSON-RPC 2.0 request with a string or number id -32600 with 400, a page 200; other
// methods, batches and non-JSON are left to the host (status 0); a discover
// notification is handled (202) with no response and reads no grant.
func TestHandleJSONRPCEnvelope(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	d := newDiscoverer(cat, allGranted(t, cat), nil)
	for _, tc := range []struct {
		msg    string
		status int    // the outcome: 0 for a message left to the host
		want   string // exact response, or a prefix ending in '*'
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"multillm.tools.discover","params":{"query":""}}`, 400,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"invalid_params","data":{"error":"invalid_params","status":400}}}`},
		{`{"jsonrpc":"2.0","id":"a\"b","method":"multillm.tools.discover","params":{"query":"model","x":1}}`, 400,
			`{"jsonrpc":"2.0","id":"a\"b","error":{"code":-32602,"message":"invalid_params","data":{"error":"invalid_params","status":400}}}`},
		{`{"jsonrpc":"2.0","id":8,"method":"multillm.tools.discover"}`, 400,
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"invalid_params","data":{"error":"invalid_params","status":400}}}`},
		{`{"jsonrpc":"2.0","id":9,"method":"multillm.tools.discover","params":{"query":"model","cursor":"bad"}}`, 400,
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"invalid_cursor","data":{"error":"invalid_cursor","status":400}}}`},
		{`{"jsonrpc":"1.0","id":1,"method":"multillm.tools.discover","params":{"query":"model"}}`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid_request","data":{"error":"invalid_request","status":400}}}`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"multillm.tools.discover","params":{"query":"model"}}`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid_request","data":{"error":"invalid_request","status":400}}}`},
		{`{"jsonrpc":"2.0","id":true,"method":"multillm.tools.discover","params":{"query":"model"}}`, 400,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid_request","data":{"error":"invalid_request","status":400}}}`},
		{` {"jsonrpc":"2.0","id":"r1","method":"multillm.tools.discover","params":{"query":"model"}} `, 200,
			`{"jsonrpc":"2.0","id":"r1","result":{"tools":[*`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 0, ``},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"model_search"}}`, 0, ``},
		{`[{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"model"}}]`, 0, ``},
		{`not json`, 0, ``},
		{``, 0, ``},
	} {
		resp, status := d.HandleJSONRPC(ctx, alice, []byte(tc.msg))
		if status != tc.status {
			t.Errorf("HandleJSONRPC(%s) status = %d, want %d", tc.msg, status, tc.status)
		}
		got := string(resp)
		if p, ok := strings.CutSuffix(tc.want, "*"); ok {
			if !strings.HasPrefix(got, p) {
				t.Errorf("HandleJSONRPC(%s) = %.120s, want prefix %s", tc.msg, got, p)
			}
		} else if got != tc.want {
			t.Errorf("HandleJSONRPC(%s) =\n%s\nwant\n%s", tc.msg, got, tc.want)
		}
		if status != 0 && !json.Valid(resp) {
			t.Errorf("HandleJSONRPC(%s): response is not JSON", tc.msg)
		}
		// AppendJSONRPC writes the same bytes after what dst holds, and leaves dst
		// as it was when it does not answer (a next cursor is sealed anew each time).
		prefix := []byte("kept|")
		out, st := d.AppendJSONRPC(ctx, prefix, alice, []byte(tc.msg))
		if st != status || !bytes.HasPrefix(out, prefix) {
			t.Errorf("AppendJSONRPC(%q, %s) = %.40s, %d", prefix, tc.msg, out, st)
			continue
		}
		a, _, _ := strings.Cut(string(out[len(prefix):]), `"nextCursor"`)
		b, _, _ := strings.Cut(got, `"nextCursor"`)
		if a != b {
			t.Errorf("AppendJSONRPC(%s) appended %.120s, HandleJSONRPC answered %.120s", tc.msg, a, b)
		}
	}
	// A notification: handled (202), no response, no grant read.
	dn := newDiscoverer(cat, forbiddenReader{t}, nil)
	resp, status := dn.HandleJSONRPC(ctx, alice, []byte(`{"jsonrpc":"2.0","method":"multillm.tools.discover","params":{"query":"model"}}`))
	if status != http.StatusAccepted || resp != nil {
		t.Errorf("notification: %s, %d; want nil, 202", resp, status)
	}
	buf := []byte("kept")
	if out, status := dn.AppendJSONRPC(ctx, buf, alice, []byte(`{"jsonrpc":"2.0","method":"multillm.tools.discover","params":{"query":"model"}}`)); status != http.StatusAccepted || string(out) != "kept" {
		t.Errorf("notification appended: %q, %d; want %q, 202", out, status, buf)
	}
}

// A host answering from one buffer allocates far fewer bytes than HandleJSONRPC, which
// allocates every response anew. (Bytes, not allocations: the race detector adds
// allocations of its own.)
func TestAppendJSONRPCReusesBuffer(t *testing.T) {
	ctx := t.Context()
	var tools []json.RawMessage // a page of about 48 KB, so that the response dominates
	for i := range 8 {
		tools = append(tools, toolDef(fmt.Sprintf("model_tool_%d", i), "Model tool. "+strings.Repeat("Lorem ipsum dolor sit amet. ", 220)))
	}
	cat := newCatalog(t, tools...)
	d := newDiscoverer(cat, allGranted(t, cat), nil)
	msg := []byte(`{"jsonrpc":"2.0","id":3,"method":"multillm.tools.discover","params":{"query":"model","limit":8}}`)
	buf := make([]byte, 0, discovery.MaxResponseBytes)
	bytesPer := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 50 {
			f()
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / 50
	}
	resp, _ := d.HandleJSONRPC(ctx, alice, msg)
	fresh := bytesPer(func() { d.HandleJSONRPC(ctx, alice, msg) })
	reused := bytesPer(func() {
		out, _ := d.AppendJSONRPC(ctx, buf[:0], alice, msg)
		if &out[0] != &buf[:1][0] {
			t.Fatal("AppendJSONRPC did not write into the buffer it was given")
		}
	})
	if len(resp) < 40_000 || fresh < uint64(len(resp)) || reused >= uint64(len(resp))/4 {
		t.Errorf("bytes allocated per response of %d bytes: AppendJSONRPC into a buffer %d, HandleJSONRPC %d", len(resp), reused, fresh)
	}
}

// SPEC DISC-1, FLAG-2: JSON-RPC member names are exact and a message is read once:
// "Method", "METHOD" or "Params" are not the members "method" and "params", and a
// message naming its method twice is ambiguous. HandleJSONRPC must leave such
// messages to the host (status 0) instead of answering them as discovery: a
// tools/list request with a stray "METHOD" member must never be hijacked.
func TestHandleJSONRPCExactMembers(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	d := newDiscoverer(cat, allGranted(t, cat), nil)
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"Method":"multillm.tools.discover","params":{"query":"model"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","METHOD":"multillm.tools.discover","params":{"query":"model"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"multillm.tools.discover","params":{"query":"model"}}`,
	} {
		if resp, status := d.HandleJSONRPC(ctx, alice, []byte(msg)); status != 0 {
			t.Errorf("HandleJSONRPC(%s) answered %.60s…, want it left to the host", msg, resp)
		}
	}
	// "Params" is not "params": the discover call has no params.
	resp, _ := d.HandleJSONRPC(ctx, alice, []byte(`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","Params":{"query":"model"}}`))
	if !strings.Contains(string(resp), `"error":"invalid_params"`) {
		t.Errorf(`a discover call with "Params" only answered %.80s…, want invalid_params`, resp)
	}
}

// SPEC DISC-2: a query may hold any character but Cc; U+FFFD (category So) spelled in
// valid UTF-8 is an ordinary character, and only invalid UTF-8 is refused.
func TestQueryReplacementCharacter(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	d := newDiscoverer(cat, allGranted(t, cat), nil)
	if _, err := d.Discover(ctx, alice, discovery.Request{Query: "model \uFFFD search"}); err != nil {
		t.Errorf("Discover(query with U+FFFD) = %v, want a page", err)
	}
	if _, err := d.DiscoverParams(ctx, alice, json.RawMessage(`{"query":"model \ufffd search"}`)); err != nil {
		t.Errorf("DiscoverParams(query with \\ufffd) = %v, want a page", err)
	}
	_, err := d.Discover(ctx, alice, discovery.Request{Query: "model \xff search"})
	wantCode(t, "invalid UTF-8", err, discovery.CodeInvalidParams)
}

// SPEC ERR-1, ERR-2: AppendJSONRPCError frames an error that is not an *Error (a host
// check's own error, say) as internal_error (500, -32603), without its text; a
// wrapped *Error keeps its own code.
func TestAppendJSONRPCErrorForeign(t *testing.T) {
	for _, err := range []error{errors.New("secret storage text"), fmt.Errorf("host: %w", context.Canceled)} {
		got := string(discovery.AppendJSONRPCError(nil, json.RawMessage(`1`), err))
		want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal_error","data":{"error":"internal_error","status":500}}}`
		if got != want {
			t.Errorf("AppendJSONRPCError(foreign) =\n%s\nwant (as documented)\n%s", got, want)
		}
	}
	wrapped := fmt.Errorf("host wraps: %w", discovery.CodeToolNotGranted)
	if got := string(discovery.AppendJSONRPCError(nil, json.RawMessage(`1`), wrapped)); !strings.Contains(got, `"message":"tool_not_granted"`) {
		t.Errorf("AppendJSONRPCError(wrapped *Error) = %s", got)
	}
}

// SPEC PAGE-1: every discovery response, error responses included, is at most 65,536
// bytes, even for a request whose id alone nearly fills (or exceeds) that: the id is
// echoed only when the answer still fits.
func TestHandleJSONRPCHugeID(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, sampleTools()...)
	d := newDiscoverer(cat, allGranted(t, cat), nil)
	for _, n := range []int{65_000, 65_300, 65_400, 65_450, 65_500, 70_000, 200_000} {
		id := `"` + strings.Repeat("x", n) + `"`
		for _, msg := range [][]byte{
			discoverMsg(id, "model", 16, ""),
			discoverMsg(id, "", 16, ""),
		} {
			resp, status := d.HandleJSONRPC(ctx, alice, msg)
			if status == 0 || len(resp) > discovery.MaxResponseBytes || !json.Valid(resp) {
				t.Errorf("id of %d bytes: status %d, response of %d bytes (valid JSON %v)", n+2, status, len(resp), json.Valid(resp))
			}
		}
	}
}
