package rpcwire

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// SPEC FLAG-3: a Filter marked Unavailable writes an answer of the 503 family as HTTP
// 503 with an application/json body, whether the handler behind wrote it as an event
// stream (its header held until the first event, a Flush before it committing
// nothing) or as JSON; any other first event, or a Filter not so marked, passes as the
// handler wrote it; a stream that ends before a whole event still gets its header.
func TestAttack3FilterUnavailable(t *testing.T) {
	const refusal = `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"grants_unavailable","data":{"error":"grants_unavailable","status":503}}}`
	const result = `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`
	keep := func(msg []byte) ([]byte, bool) { return msg, false }
	for _, c := range []struct {
		name        string
		unavailable bool
		contentType string
		writes      []string
		status      int
		wantType    string
		body        string
	}{
		{"event refusal", true, "text/event-stream", []string{"event: message\ndata: " + refusal + "\n\n"}, 503, "application/json", refusal},
		{"event refusal in pieces", true, "text/event-stream", []string{"event: mess", "age\ndata: " + refusal[:20], refusal[20:] + "\n\n", "event: message\ndata: {}\n\n"}, 503, "application/json", refusal},
		{"event result", true, "text/event-stream", []string{"event: message\ndata: " + result + "\n\n"}, 200, "text/event-stream", "event: message\ndata: " + result + "\n\n"},
		{"event refusal, not marked", false, "text/event-stream", []string{"event: message\ndata: " + refusal + "\n\n"}, 200, "text/event-stream", "event: message\ndata: " + refusal + "\n\n"},
		{"no whole event", true, "text/event-stream", []string{"event: message\ndata: {"}, 200, "text/event-stream", "event: message\ndata: {"},
		{"JSON refusal", true, "application/json", []string{refusal}, 503, "application/json", refusal},
		{"JSON refusal, not marked", false, "application/json", []string{refusal}, 200, "application/json", refusal},
	} {
		rec := httptest.NewRecorder()
		f := &Filter{W: rec, Rewrite: keep, Unavailable: c.unavailable}
		f.Header().Set("Content-Type", c.contentType)
		f.WriteHeader(http.StatusOK)
		for i, w := range c.writes {
			f.Write([]byte(w))
			if i == 0 {
				f.Flush()
				if c.unavailable && c.contentType == "text/event-stream" && len(c.writes) > 1 && rec.Flushed {
					t.Errorf("%s: a Flush before the first whole event committed the header", c.name)
				}
			}
		}
		f.Finish()
		if rec.Code != c.status || rec.Header().Get("Content-Type") != c.wantType || rec.Body.String() != c.body {
			t.Errorf("%s: %d %q %q, want %d %q %q", c.name, rec.Code, rec.Header().Get("Content-Type"), rec.Body.String(), c.status, c.wantType, c.body)
		}
	}
}
