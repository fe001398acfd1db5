package rpcwire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
)

// LineReader returns each non-blank line without its ending, reports a line over the
// cap as too long without keeping it, and goes on with the next line.
func TestLineReader(t *testing.T) {
	in := "a\r\n\n  \nbb\n" + strings.Repeat("x", 100) + "\ncc"
	lr := NewLineReader(strings.NewReader(in), 10)
	type got struct {
		line    string
		tooLong bool
	}
	var lines []got
	for {
		b, tooLong, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, got{string(b), tooLong})
	}
	want := []got{{"a", false}, {"bb", false}, {"", true}, {"cc", false}}
	if len(lines) != len(want) {
		t.Fatalf("lines = %+v, want %+v", lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, lines[i], want[i])
		}
	}
}

// AppendError with a code's own JSON-RPC code and status writes, for every code and
// id, the bytes discovery.AppendJSONRPCError writes: the wire form is one.
func TestAppendErrorMatchesDiscovery(t *testing.T) {
	for _, code := range discovery.Codes() {
		for _, id := range []string{`7`, `"a\"b"`, ``} {
			got := AppendError([]byte("x"), []byte(id), code, int64(code.JSONRPCCode()), code.Status())
			want := discovery.AppendJSONRPCError([]byte("x"), []byte(id), code)
			if !bytes.Equal(got, want) {
				t.Errorf("AppendError(%s, %s) =\n%s\nwant\n%s", id, string(code), got, want)
			}
		}
	}
}

// CleanResponse keeps the library's own errors and results, and rewrites any other
// error content-free with its id (SPEC ERR-2); AppendError writes
// discovery.AppendJSONRPCError's bytes.
func TestCleanResponse(t *testing.T) {
	own := AppendError(nil, []byte(`7`), discovery.CodeToolNotGranted, -32000, 403)
	if want := discovery.AppendJSONRPCError(nil, []byte(`7`), discovery.CodeToolNotGranted); !bytes.Equal(own, want) {
		t.Errorf("AppendError = %s, want %s", own, want)
	}
	for _, c := range []struct {
		msg, want string // want "" means kept
	}{
		{string(own), ""},
		{`{"jsonrpc":"2.0","id":1,"result":{"x":"secret"}}`, ""},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"tool 'secret' not found"}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid_params","data":{"error":"invalid_params","status":400}}}`},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":-32000,"message":"tool_not_granted","data":{"error":"tool_not_granted","status":403,"x":"secret"}}}`,
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32000,"message":"server_error","data":{"error":"server_error","status":500}}}`},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"secret"}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"method_not_found","data":{"error":"method_not_found","status":404}}}`},
	} {
		out, changed := CleanResponse([]byte(c.msg))
		if c.want == "" && changed || c.want != "" && string(out) != c.want {
			t.Errorf("CleanResponse(%s) = %s, %v; want %q", c.msg, out, changed, c.want)
		}
	}
}

// CleanResponse keeps every error the library writes, for each of discovery.Codes (safe
// mode's invalid_confirmation and confirmation_required were once rewritten to
// server_error).
func TestCleanResponseKeepsEveryOwnCode(t *testing.T) {
	for _, code := range discovery.Codes() {
		msg := discovery.AppendJSONRPCError(nil, []byte("3"), code)
		if out, changed := CleanResponse(msg); changed {
			t.Errorf("CleanResponse(%s) = %s, want it unchanged", msg, out)
		}
	}
}

// CodeOf reads the code of a *discovery.Error or a discovery.Code anywhere in err's
// chain, and answers unknown for any other error.
func TestCodeOf(t *testing.T) {
	wrapped := fmt.Errorf("host: %w", discovery.CodeToolNotGranted)
	for _, c := range []struct {
		err  error
		want discovery.Code
	}{
		{discovery.CodeGrantsUnavailable, discovery.CodeGrantsUnavailable},
		{wrapped, discovery.CodeToolNotGranted},
		{&discovery.Error{Code: discovery.CodeInvalidCursor}, discovery.CodeInvalidCursor},
		{fmt.Errorf("x: %w", &discovery.Error{Code: discovery.CodeInvalidCursor}), discovery.CodeInvalidCursor},
		{errors.New("host text"), discovery.CodeCallRefused},
	} {
		if got := CodeOf(c.err, discovery.CodeCallRefused); got != c.want {
			t.Errorf("CodeOf(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// CleanResponseKeeping lets out unchanged an error its keep accepts, and still rewrites
// any other foreign error content-free.
func TestCleanResponseKeeping(t *testing.T) {
	host := []byte(`{"jsonrpc":"2.0","id":4,"error":{"code":-32099,"message":"host says no"}}`)
	keep := func(code int64, message string, _ []byte) bool { return code == -32099 && message == "host says no" }
	if out, changed := CleanResponseKeeping(host, keep); changed {
		t.Errorf("CleanResponseKeeping(%s) = %s, want it unchanged", host, out)
	}
	want := `{"jsonrpc":"2.0","id":4,"error":{"code":-32099,"message":"server_error","data":{"error":"server_error","status":500}}}`
	if out, changed := CleanResponse(host); !changed || string(out) != want {
		t.Errorf("CleanResponse(%s) = %s, %v; want %s", host, out, changed, want)
	}
	other := []byte(`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"secret"}}`)
	if out, changed := CleanResponseKeeping(other, keep); !changed || strings.Contains(string(out), "secret") {
		t.Errorf("CleanResponseKeeping(%s) = %s, %v; want it rewritten", other, out, changed)
	}
}

// SPEC PAGE-1: the refusal of a discovery tool call with a long id carries the id
// while the response stays within discovery.MaxResponseBytes, and a null id past that.
func TestAppendToolIDError(t *testing.T) {
	code := discovery.CodeInvalidRequest
	fits := discovery.MaxResponseBytes - invalidRequestLen // the longest id echoed
	for _, n := range []int{MaxToolIDBytes + 1, 8000, fits, fits + 1, 1 << 20} {
		id := []byte(`"` + strings.Repeat("i", n-2) + `"`)
		want := id
		if n > fits {
			want = []byte("null")
		}
		got := AppendToolIDError([]byte("x"), id)
		if w := discovery.AppendJSONRPCError([]byte("x"), want, code); !bytes.Equal(got, w) {
			t.Errorf("AppendToolIDError(%d-byte id) = %.80s…, want %.80s…", n, got, w)
		}
		if len(got)-1 > discovery.MaxResponseBytes {
			t.Errorf("AppendToolIDError(%d-byte id): %d bytes, over %d", n, len(got)-1, discovery.MaxResponseBytes)
		}
	}
	if n := len(AppendToolIDError(nil, []byte(`"`+strings.Repeat("i", fits-2)+`"`))); n != discovery.MaxResponseBytes {
		t.Errorf("the longest echoed id answers %d bytes, want exactly %d", n, discovery.MaxResponseBytes)
	}
}

// SPEC PAGE-1: FitError replaces an error response that only its id makes longer than
// 64 KiB by invalid_request with a null id, and leaves every other message as it is:
// errors that fit, results and requests of any size, and an error long by itself.
func TestFitError(t *testing.T) {
	id := func(n int) []byte { return []byte(`"` + strings.Repeat("i", n-2) + `"`) }
	refusal := discovery.AppendJSONRPCError(nil, nil, discovery.CodeInvalidRequest)
	fits := len(refusal) - len("null")
	grantErr := func(n int) []byte { return discovery.AppendJSONRPCError(nil, id(n), discovery.CodeToolNotGranted) }
	notGranted := len(grantErr(64)) - 64 // the tool_not_granted response without its id
	for _, c := range []struct {
		name    string
		msg     []byte
		changed bool
	}{
		{"short id", grantErr(64), false},
		{"8 KiB id", grantErr(8 << 10), false},
		{"id that just fits", grantErr(discovery.MaxResponseBytes - notGranted), false},
		{"id one byte over", grantErr(discovery.MaxResponseBytes - notGranted + 1), true},
		{"invalid_request, longest id", discovery.AppendJSONRPCError(nil, id(discovery.MaxResponseBytes-fits), discovery.CodeInvalidRequest), false},
		{"70 KB id", grantErr(70_000), true},
		{"result, 70 KB id", []byte(`{"jsonrpc":"2.0","id":` + string(id(70_000)) + `,"result":{}}`), false},
		{"request, 70 KB id", []byte(`{"jsonrpc":"2.0","id":` + string(id(70_000)) + `,"method":"ping"}`), false},
		{"error long by its data", []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":"` + strings.Repeat("d", 70_000) + `"}}`), false},
		{"not JSON", []byte(strings.Repeat("x", 70_000)), false},
	} {
		out, changed := FitError(c.msg)
		if changed != c.changed {
			t.Errorf("%s (%d bytes): changed %v, want %v", c.name, len(c.msg), changed, c.changed)
		}
		switch {
		case changed && !bytes.Equal(out, refusal):
			t.Errorf("%s: %.200s, want %s", c.name, out, refusal)
		case !changed && !bytes.Equal(out, c.msg):
			t.Errorf("%s: the message changed", c.name)
		}
	}
}

// BenchmarkFitError is what FitError adds to a message it leaves alone: a 1 MiB
// tools/list-like result (one scan of its top-level members) and a 2 KiB tool result,
// as most are (a length compared, nothing scanned).
func BenchmarkFitError(b *testing.B) {
	var tools []string
	for len(strings.Join(tools, ",")) < 1<<20 {
		tools = append(tools, `{"name":"t","description":"`+strings.Repeat("d", 500)+`","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`)
	}
	for _, c := range []struct{ name, msg string }{
		{"1MiB", `{"jsonrpc":"2.0","id":1,"result":{"tools":[` + strings.Join(tools, ",") + `]}}`},
		{"2KiB", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 2000) + `"}]}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			msg := []byte(c.msg)
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				if _, changed := FitError(msg); changed {
					b.Fatal("a result changed")
				}
			}
		})
	}
}
