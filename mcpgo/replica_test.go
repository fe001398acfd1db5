package mcpgo_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/mcpgo"
)

// Two replicas of one deployment (each its own mcp-go server, whose default session
// manager keeps no state per process) given the same Options.SessionKey serve each
// other's session ids to the principal that opened them, and still answer 404 to
// another principal; a replica with another key answers 404 to them all, as two
// processes without a SessionKey do. Fails while the key is drawn per Adapter.
func TestHTTPSessionAcrossReplicas(t *testing.T) {
	key := bytes.Repeat([]byte("k"), 32)
	replica := func(key []byte) string {
		f := newFixture(t, fixtureOptions{enabled: true})
		f.a = mcpgo.New(f.d, &mcpgo.Options{SessionKey: key})
		srv := httptest.NewServer(bearer(f.a.Handler(server.NewStreamableHTTPServer(f.server))))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	one, two, other := replica(key), replica(key), replica(nil)
	h := &httpSession{t: t, url: one, token: "tok-alice"}
	h.initialize()
	const ping = `{"jsonrpc":"2.0","id":"p","method":"ping"}`
	for _, c := range []struct {
		name, url, token string
		status           int
	}{
		{"alice on the other replica", two, "tok-alice", http.StatusOK},
		{"bob on the other replica", two, "tok-bob", http.StatusNotFound},
		{"alice on a replica of another key", other, "tok-alice", http.StatusNotFound},
	} {
		s := &httpSession{t: t, url: c.url, token: c.token, session: h.session}
		resp, body := s.post(ping, "")
		if resp.StatusCode != c.status || c.status == http.StatusOK && !strings.Contains(string(body), `"result":{}`) {
			t.Errorf("%s: %d %s, want %d", c.name, resp.StatusCode, body, c.status)
		}
	}
}
