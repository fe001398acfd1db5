package mcpsdk

import (
	"bytes"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
)

// parseEnvelope reads ids, members and shapes as the SDK's decoder will, and refuses
// what would end an SDK session or be read two ways.
func TestParseEnvelope(t *testing.T) {
	for _, c := range []struct {
		msg    string
		fault  discovery.Code // "" for none
		id     string
		method string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "", `1`, "ping"},
		{`{"jsonrpc":"2.0","id":"a\u0062","method":"p\u0069ng"}`, "", `"a\u0062"`, "ping"},
		{`{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}`, "", ``, "notifications/initialized"},
		{`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, "", `9007199254740992`, "ping"},
		{`{"jsonrpc":"2.0","id":9007199254740993e3,"method":"ping"}`, discovery.CodeInvalidRequest, ``, ""},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, discovery.CodeInvalidRequest, ``, ""},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, discovery.CodeInvalidRequest, ``, ""},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, "", `1`, ""},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m","data":[1]}}`, "", `1`, ""},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1.5}}`, discovery.CodeInvalidRequest, ``, ""},
		{`{"jsonrpc":"2.0","result":{}}`, discovery.CodeInvalidRequest, ``, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"a","\u006dethod":"b"}`, discovery.CodeInvalidRequest, `1`, ""}, // the id once: answered, as mcpgo does
		{`{"jsonrpc":"2.0","method":"a","method":"b","id":1}`, discovery.CodeInvalidRequest, `1`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"a","id":2}`, discovery.CodeInvalidRequest, ``, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"a","\u0069d":1}`, discovery.CodeInvalidRequest, ``, ""},
		{`{"jsonrpc":"2.0","id":1,"Method":"a"}`, discovery.CodeInvalidRequest, `1`, ""}, // a case twin of "method", as mcpgo refuses it
		{`{"jsonrpc":"2.0","id":1,"method":"a","Params":{}}`, discovery.CodeInvalidRequest, `1`, ""},
		{`{"jsonrpc":"2.0","id":1,"ID":2,"method":"a"}`, discovery.CodeInvalidRequest, ``, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"a","key":1,"Key":2}`, "", `1`, "a"}, // not a member the SDK reads
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, discovery.CodeParseError, ``, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, discovery.CodeInvalidRequest, ``, ""},
		{`{"jsonrpc":"2.00","id":1,"method":"ping"}`, discovery.CodeInvalidRequest, `1`, ""},
	} {
		t.Run(c.msg, func(t *testing.T) {
			env, got := parseEnvelope([]byte(c.msg))
			if got != c.fault || string(env.id) != c.id || (got == "" && env.method != c.method) {
				t.Errorf("parseEnvelope(%s) = id %s method %q fault %q, want id %s method %q fault %q", c.msg, env.id, env.method, got, c.id, c.method, c.fault)
			}
		})
	}
}

// stringParam reads one exact member: never a case-insensitive match, never one of two.
func TestStringParam(t *testing.T) {
	for _, c := range []struct {
		params, want string
		ok           bool
	}{
		{`{"name":"a","arguments":{"name":"b"}}`, "a", true},
		{`{"arguments":{"name":"b"},"name":"a"}`, "a", true},
		{`{"Name":"a"}`, "", false},
		{`{"n\u0061me":"a"}`, "a", true},
		{`{"name":"a","name":"a"}`, "", false},
		{`{"name":1}`, "", false},
		{`["name"]`, "", false},
		{`{"name":"\u00e9\ud83d\ude00"}`, "é😀", true},
	} {
		t.Run(c.params, func(t *testing.T) {
			got, ok := stringParam([]byte(c.params), "name")
			if got != c.want || ok != c.ok {
				t.Errorf("stringParam(%s) = %q, %v, want %q, %v", c.params, got, ok, c.want, c.ok)
			}
		})
	}
}

// Errors the adapter wrote pass the outgoing filter; anything else, however close, is
// rewritten content-free.
func TestCleanResponse(t *testing.T) {
	for _, c := range []struct {
		in, out string // out "" means unchanged
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"x":"secret"}}`, ``},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"tool_not_granted","data":{"error":"tool_not_granted","status":403}}}`, ``},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: \"secret\""}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method_not_found","data":{"error":"method_not_found","status":404}}}`},
		{`{"jsonrpc":"2.0","id":"x","error":{"code":-32000,"message":"tool_not_granted","data":{"error":"tool_not_granted","status":403,"arg":"secret"}}}`,
			`{"jsonrpc":"2.0","id":"x","error":{"code":-32000,"message":"server_error","data":{"error":"server_error","status":500}}}`},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"secret","data":{"error":"secret","status":400}}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"invalid_params","data":{"error":"invalid_params","status":400}}}`},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: secret"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse_error","data":{"error":"parse_error","status":400}}}`},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Resource not found: secret"}}`, // the SDK's code kept
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"server_error","data":{"error":"server_error","status":500}}}`},
	} {
		t.Run(c.in, func(t *testing.T) {
			out, changed := cleanResponse([]byte(c.in))
			if c.out == "" {
				if changed {
					t.Errorf("cleanResponse(%s) = %s, want it unchanged", c.in, out)
				}
				return
			}
			if !changed || !bytes.Equal(out, []byte(c.out)) {
				t.Errorf("cleanResponse(%s) = %s, want %s", c.in, out, c.out)
			}
		})
	}
}

// BenchmarkParseEnvelope measures the front's reading of one message (grammar, depth,
// envelope) and a tools/call's name, for a small call and for one with 1 MiB of
// arguments: linear in the message, no allocation per byte.
func BenchmarkParseEnvelope(b *testing.B) {
	for _, c := range []struct {
		name string
		msg  []byte
	}{
		{"small", []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo","days":3}}}`)},
		{"1MiB", []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather_get","arguments":{"text":"` + strings.Repeat("abcdefgh", 1<<17) + `"}}}`)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.msg)))
			b.ReportAllocs()
			for b.Loop() {
				env, fault := parseEnvelope(c.msg)
				if fault != "" {
					b.Fatal(fault)
				}
				if name, ok := stringParam(env.params, "name"); !ok || name != "weather_get" {
					b.Fatal(name)
				}
			}
		})
	}
}

// The caps the adapter falls back on when a transport or Options names none are the
// SDK's own defaults: rpcwire's stand for them.
func TestDefaultCapsAreSDKs(t *testing.T) {
	if rpcwire.DefaultMaxLine != mcp.DefaultMaxLineLength {
		t.Errorf("rpcwire.DefaultMaxLine = %d, want mcp.DefaultMaxLineLength %d", rpcwire.DefaultMaxLine, mcp.DefaultMaxLineLength)
	}
	if a := New(discovery.New(nil), &Options{MaxRequestBodyBytes: -1}); a.opts.MaxRequestBodyBytes != mcp.DefaultMaxRequestBodyBytes {
		t.Errorf("MaxRequestBodyBytes -1 became %d, want mcp.DefaultMaxRequestBodyBytes", a.opts.MaxRequestBodyBytes)
	}
}
