package adaptertest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// MCPPost is one POST of a raw streamable HTTP client: Token's bearer token, and once
// Session is known its Mcp-Session-Id with Version as Mcp-Protocol-Version.
type MCPPost struct {
	URL, Token       string
	Session, Version string
	Accept           string // "" for both JSON and the event stream
}

// Do sends msg and returns the response and its body (read to the end, at most 4 MiB);
// it fails the test when the request cannot be sent.
func (p MCPPost) Do(t testing.TB, msg string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, p.URL, strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	accept := p.Accept
	if accept == "" {
		accept = "application/json, text/event-stream"
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	req.Header.Set("Authorization", "Bearer "+p.Token)
	if p.Session != "" {
		req.Header.Set("Mcp-Session-Id", p.Session)
		req.Header.Set("Mcp-Protocol-Version", p.Version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return resp, body
}
