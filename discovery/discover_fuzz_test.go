package discovery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/discovery"
)

// fuzzDiscoverer is a small enabled Discoverer for the fuzz targets.
func fuzzDiscoverer(t testing.TB) *discovery.Discoverer {
	cat := newCatalog(t, append(sampleTools(), helperTools(20)...)...)
	return newDiscoverer(cat, allGranted(t, cat), nil)
}

// refParams is a reference reading of discover params (SPEC DISC-1, DISC-2), written
// independently with encoding/json tokens and math/big: ok reports valid params, and
// cursor whether a cursor was given.
func refParams(params []byte) (ok, cursor bool) {
	if !utf8.Valid(params) || !json.Valid(params) {
		return false, false
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	if t, _ := dec.Token(); t != json.Delim('{') {
		return false, false
	}
	seen := map[string]bool{}
	var query string
	for dec.More() {
		t, _ := dec.Token()
		key := t.(string)
		if seen[key] {
			return false, false
		}
		seen[key] = true
		var v any
		if err := dec.Decode(&v); err != nil {
			return false, false
		}
		switch key {
		case "_meta":
		case "query":
			q, isStr := v.(string)
			if !isStr {
				return false, false
			}
			query = q
		case "cursor":
			c, isStr := v.(string)
			if !isStr {
				return false, false
			}
			cursor = c != ""
		case "limit":
			n, isNum := v.(json.Number)
			if !isNum || !integralIn(string(n), 1, discovery.MaxLimit) {
				return false, false
			}
		default:
			return false, false
		}
	}
	if !seen["query"] || query == "" || utf8.RuneCountInString(query) > discovery.MaxQueryLength {
		return false, false
	}
	for _, r := range query {
		if unicode.Is(unicode.Cc, r) {
			return false, false
		}
	}
	return true, cursor
}

// integralIn reports whether the JSON number s is an integer in lo..hi, exactly.
func integralIn(s string, lo, hi int64) bool {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > 10000 || e < -10000 {
			return false // far out of range with the few digits an input holds
		}
	}
	r, ok := new(big.Rat).SetString(s)
	return ok && r.IsInt() && r.Num().IsInt64() && r.Num().Int64() >= lo && r.Num().Int64() <= hi
}

// FuzzDiscoverParams: any params text answers exactly what a reference reading of
// DISC-1 and DISC-2 says: invalid_params for invalid params, a page for valid ones
// without a cursor, invalid_cursor for a forged cursor; never a panic.
func FuzzDiscoverParams(f *testing.F) {
	for _, s := range []string{
		`{"query":"model"}`, `{"query":"model","limit":3}`, `{"query":"model","limit":1.6e1,"_meta":{"a":[1]}}`,
		`{"query":"model","cursor":"AAAA"}`, `{"query":"a\u0000"}`, `{"query":"m","query":"m"}`, `[]`, `{`, ``,
		`{"query":"model","limit":160e-1}`, `{"query":"\ufffd"}`, `{"query":"m","limit":1.0000000000000000000001}`,
	} {
		f.Add([]byte(s))
	}
	d := fuzzDiscoverer(f)
	f.Fuzz(func(t *testing.T, params []byte) {
		res, err := d.DiscoverParams(context.Background(), alice, params)
		ok, cursor := refParams(params)
		var e *discovery.Error
		switch {
		case !ok:
			if !errors.As(err, &e) || e.Code != discovery.CodeInvalidParams {
				t.Fatalf("DiscoverParams(%q) = %v, want invalid_params", params, err)
			}
		case cursor:
			if !errors.As(err, &e) || e.Code != discovery.CodeInvalidCursor {
				t.Fatalf("DiscoverParams(%q) = %v, want invalid_cursor", params, err)
			}
		default:
			if err != nil {
				t.Fatalf("DiscoverParams(%q) = %v, want a page", params, err)
			}
			if len(res.Tools) > discovery.MaxLimit || !json.Valid(res.AppendJSON(nil)) {
				t.Fatalf("DiscoverParams(%q): bad page", params)
			}
		}
	})
}

// refEnvelope is a reference reading of a JSON-RPC message for HandleJSONRPC, written
// independently: handled unless the message is not one JSON object, repeats jsonrpc,
// id, method or params, or does not name the discover method with a string; id is the
// raw id (nil: a notification), bad reports an invalid request (bad id or version).
func refEnvelope(msg []byte) (handled bool, id, params []byte, bad bool) {
	if !json.Valid(msg) {
		return false, nil, nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, _ := dec.Token(); t != json.Delim('{') {
		return false, nil, nil, false
	}
	members := map[string]json.RawMessage{}
	for dec.More() {
		t, _ := dec.Token()
		var raw json.RawMessage
		dec.Decode(&raw)
		k := t.(string)
		switch k {
		case "jsonrpc", "id", "method", "params":
			if _, dup := members[k]; dup {
				return false, nil, nil, false
			}
			members[k] = raw
		}
	}
	var method string
	if m, ok := members["method"]; !ok || m[0] != '"' || json.Unmarshal(m, &method) != nil || method != discovery.DefaultMethod {
		return false, nil, nil, false
	}
	id, hasID := members["id"]
	if !hasID {
		return true, nil, nil, false
	}
	var version string
	var idStr string
	var idNum json.Number
	validID := (id[0] == '"' && json.Unmarshal(id, &idStr) == nil) || ((id[0] == '-' || id[0] >= '0' && id[0] <= '9') && json.Unmarshal(id, &idNum) == nil)
	if v, ok := members["jsonrpc"]; !ok || json.Unmarshal(v, &version) != nil || version != "2.0" || !validID {
		return true, id, nil, true
	}
	return true, id, members["params"], false
}

// FuzzHandleJSONRPC: any message is left to the host (nil, false), answered with
// nothing (a notification), or answered with valid JSON of at most 65,536 bytes.
func FuzzHandleJSONRPC(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"model helper"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"multillm.tools.discover","params":{"query":"model","limit":2}}`,
		`{"jsonrpc":"2.0","method":"multillm.tools.discover","params":{"query":"model"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":null,"method":"multillm.tools.discover"}`,
		`[{"jsonrpc":"2.0"}]`, `{"method":"multillm.tools.discover","method":"x"}`, ``,
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.disc\u006fver","params":{"query":"model"}}`,
		`{"jsonrpc":"2.0","id":"\u0041","method":"multillm.tools.discover","params":{"query":"m\u006fdel"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"multillm.tools.discover\",\"params\":{\"query\":\"mod\xffel\"}}",
		`{"jsonrpc":"2\u002e0","id":3,"method":"multillm.tools.discover","params":{"query":"model"}}`,
		` {"params":{"limit":2,"query":"model"},"id":-0.5e1,"method":"multillm.tools.discover","jsonrpc":"2.0"} `,
	} {
		f.Add([]byte(s))
	}
	d := fuzzDiscoverer(f)
	f.Fuzz(func(t *testing.T, msg []byte) {
		resp, status := d.HandleJSONRPC(context.Background(), alice, msg)
		wantHandled, id, params, bad := refEnvelope(msg)
		if handled := status != 0; handled != wantHandled {
			t.Fatalf("HandleJSONRPC(%q) status = %d, reference handled %v", msg, status, wantHandled)
		}
		if status == 0 || id == nil {
			if resp != nil || (status != 0 && status != http.StatusAccepted) {
				t.Fatalf("HandleJSONRPC(%q) answered %.100q, %d, want no response", msg, resp, status)
			}
			return
		}
		if !json.Valid(resp) || len(resp) > discovery.MaxResponseBytes {
			t.Fatalf("HandleJSONRPC(%q) = %.200q", msg, resp)
		}
		if bad {
			if !bytes.HasPrefix(resp, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`)) {
				t.Fatalf("HandleJSONRPC(%q) = %.200q, want invalid_request", msg, resp)
			}
			return
		}
		if !bytes.HasPrefix(resp, []byte(`{"jsonrpc":"2.0","id":`+string(id)+`,`)) {
			t.Fatalf("HandleJSONRPC(%q) = %.200q, want the id %s echoed", msg, resp, id)
		}
		ok, cursor := refParams(params)
		var code discovery.Code
		wantStatus := http.StatusOK
		if i := bytes.Index(resp, []byte(`"data":{"error":"`)); i >= 0 {
			rest := resp[i+len(`"data":{"error":"`):]
			code = discovery.Code(rest[:bytes.IndexByte(rest, '"')])
			wantStatus = code.Status()
		}
		if status != wantStatus {
			t.Fatalf("HandleJSONRPC(%q) = %.200q, status %d, want %d", msg, resp, status, wantStatus)
		}
		switch {
		case !ok && code != discovery.CodeInvalidParams,
			ok && cursor && code != discovery.CodeInvalidCursor,
			ok && !cursor && code != "":
			t.Fatalf("HandleJSONRPC(%q) answered %q, reference: params ok %v, cursor %v", msg, code, ok, cursor)
		}
	})
}
