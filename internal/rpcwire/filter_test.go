package rpcwire

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
)

// Filter rewrites a held application/json body and each SSE data line through Rewrite,
// replaces a text/plain 400 with an id by TextError's body and any other text/plain
// error by its status text, and passes other bodies as they are (SPEC ERR-2).
func TestFilter(t *testing.T) {
	rewrite := func(msg []byte) ([]byte, bool) {
		if strings.Contains(string(msg), "secret") {
			return []byte(`{"clean":true}`), true
		}
		return msg, false
	}
	textError := func(id []byte, status int, head []byte) []byte {
		return []byte(`{"id":` + string(id) + `,"head":"` + string(head) + `"}`)
	}
	cases := []struct {
		name, ctype string
		status      int
		id          string
		body        []string
		wantType    string
		want        string
	}{
		{"json rewritten", "application/json", 200, "", []string{`{"sec`, `ret":1}` + "\n"}, "application/json", `{"clean":true}`},
		{"json kept", "application/json", 200, "", []string{"{\"a\":1}\n"}, "application/json", "{\"a\":1}\n"},
		{"sse rewritten", "text/event-stream", 200, "", []string{"event: message\ndata: {\"secret\":1}\n", "\nevent: message\ndata:{\"a\":1}\n\n"},
			"text/event-stream", "event: message\ndata: {\"clean\":true}\n\nevent: message\ndata:{\"a\":1}\n\n"},
		{"text 400 with id", "text/plain; charset=utf-8", 400, "7", []string{strings.Repeat("q", 60), "rrrrsecret"}, "application/json",
			`{"id":7,"head":"` + strings.Repeat("q", 60) + `rrrr"}`},
		{"text 400 without id", "text/plain; charset=utf-8", 400, "", []string{"secret"}, "text/plain; charset=utf-8", "Bad Request\n"},
		{"text 500 with id", "text/plain; charset=utf-8", 500, "7", []string{"secret"}, "text/plain; charset=utf-8", "Internal Server Error\n"},
		{"other passes", "image/png", 200, "", []string{"secret"}, "image/png", "secret"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			f := &Filter{W: rec, Rewrite: rewrite, TextError: textError}
			if c.id != "" {
				f.ID = []byte(c.id)
			}
			f.Header().Set("Content-Type", c.ctype)
			f.WriteHeader(c.status)
			for _, p := range c.body {
				if n, err := f.Write([]byte(p)); n != len(p) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			f.Finish()
			if rec.Code != c.status || rec.Header().Get("Content-Type") != c.wantType || rec.Body.String() != c.want {
				t.Errorf("got %d %q %q, want %d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String(), c.status, c.wantType, c.want)
			}
		})
	}
}

// bodyFault names a body over the cap message_too_large (413) and any other read
// failure invalid_request (400).
func TestBodyFault(t *testing.T) {
	if got := bodyFault(errTooLarge); got != discovery.CodeMessageTooLarge || got.Status() != http.StatusRequestEntityTooLarge {
		t.Errorf("bodyFault(errTooLarge) = %v", got)
	}
	if got := bodyFault(http.ErrBodyReadAfterClose); got != discovery.CodeInvalidRequest {
		t.Errorf("bodyFault(other) = %v", got)
	}
}

// RefuseRebound answers 403 with the given text, reading nothing, for a request on a
// loopback address with a foreign Host, and leaves every other request alone.
func TestRefuseRebound(t *testing.T) {
	for _, c := range []struct {
		name, local, host string
		refused           bool
	}{
		{"rebound", "127.0.0.1", "evil.example", true},
		{"rebound, IPv6 loopback", "::1", "evil.example:8080", true},
		{"loopback Host", "127.0.0.1", "localhost:8080", false},
		{"IP Host", "127.0.0.1", "127.0.0.1:8080", false},
		{"public address", "192.0.2.7", "evil.example", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := &countingBody{r: strings.NewReader(`{"a":1}`)}
			r := httptest.NewRequest("POST", "http://"+c.host+"/mcp", body)
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.ParseIP(c.local), Port: 8080}))
			rec := httptest.NewRecorder()
			if got := RefuseRebound(rec, r, "nope"); got != c.refused {
				t.Fatalf("RefuseRebound = %t, want %t", got, c.refused)
			}
			if c.refused && (rec.Code != 403 || rec.Body.String() != "nope\n") || !c.refused && rec.Body.Len() > 0 {
				t.Errorf("answered %d %q", rec.Code, rec.Body.String())
			}
			if body.n > 0 {
				t.Errorf("the body was read (%d bytes)", body.n)
			}
		})
	}
}

// ReadBody answers a body over the cap 413 message_too_large (content-free) and
// returns a body within it, closing it either way.
func TestReadBody(t *testing.T) {
	for _, c := range []struct {
		name, body string
		ok         bool
		status     int
		want       string
	}{
		{"within", `{"a":1}`, true, 200, ""},
		{"at the cap", strings.Repeat("x", 50), true, 200, ""},
		{"over", strings.Repeat("x", 51), false, 413,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message_too_large","data":{"error":"message_too_large","status":413}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := &countingBody{r: strings.NewReader(c.body)}
			r := httptest.NewRequest("POST", "http://127.0.0.1/mcp", body)
			rec := httptest.NewRecorder()
			got, ok := ReadBody(rec, r, 50)
			if ok != c.ok || rec.Code != c.status || rec.Body.String() != c.want {
				t.Fatalf("ReadBody = %q, %t; answered %d %q, want %t, %d %q", got, ok, rec.Code, rec.Body.String(), c.ok, c.status, c.want)
			}
			if ok && string(got) != c.body {
				t.Errorf("ReadBody = %q, want %q", got, c.body)
			}
			if !body.closed {
				t.Error("the body was not closed")
			}
		})
	}
}

type countingBody struct {
	r      *strings.Reader
	n      int
	closed bool
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += n
	return n, err
}

func (b *countingBody) Close() error { b.closed = true; return nil }

// InvalidArgumentsText names the keyword and schema location, quoted, and nothing else.
func TestInvalidArgumentsText(t *testing.T) {
	if got := InvalidArgumentsText(&discovery.Error{Code: discovery.CodeInvalidArguments}); got != "invalid arguments" {
		t.Errorf("without keyword: %q", got)
	}
	got := InvalidArgumentsText(&discovery.Error{Code: discovery.CodeInvalidArguments, Keyword: "type", Path: "/properties/a"})
	if want := `invalid arguments: keyword "type" failed at schema location "/properties/a"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Answer writes JSON, one event when event is set and Accept takes only
// text/event-stream, and status alone for an empty body.
func TestAnswer(t *testing.T) {
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80}
	cases := []struct {
		name, accept, host string
		body               string
		event              bool
		wantCode           int
		wantType, wantBody string
	}{
		{"json", "application/json, text/event-stream", "localhost", `{"a":1}`, true, 400, "application/json", `{"a":1}`},
		{"event", "text/event-stream", "localhost", `{"a":1}`, true, 200, "text/event-stream", "event: message\ndata: {\"a\":1}\n\n"},
		{"no event wanted", "text/event-stream", "localhost", `{"a":1}`, false, 400, "application/json", `{"a":1}`},
		{"empty", "", "localhost", "", false, 400, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", nil)
			r.Host = c.host
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(loopback)))
			if c.accept != "" {
				r.Header.Set("Accept", c.accept)
			}
			rec := httptest.NewRecorder()
			Answer(rec, r, 400, []byte(c.body), c.event)
			if rec.Code != c.wantCode || rec.Header().Get("Content-Type") != c.wantType || rec.Body.String() != c.wantBody {
				t.Errorf("got %d %q %q, want %d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String(), c.wantCode, c.wantType, c.wantBody)
			}
		})
	}
}

// privateCache drops what lets a shared cache store a response and adds private and
// no-store, keeping the other directives.
func TestPrivateCache(t *testing.T) {
	for _, c := range [][2]string{
		{"", "private, no-store"},
		{"public, max-age=600", "max-age=600, private, no-store"},
		{"PUBLIC, S-MAXAGE=60, no-transform", "no-transform, private, no-store"},
		{"no-cache, no-transform", "no-cache, no-transform, private, no-store"},
		{"private, no-store", "private, no-store"},
	} {
		h := http.Header{}
		if c[0] != "" {
			h.Set("Cache-Control", c[0])
		}
		privateCache(h)
		if got := strings.Join(h.Values("Cache-Control"), "|"); got != c[1] {
			t.Errorf("privateCache(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}
