package adaptertest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
	"testing"
)

// HeaderCase is one pair of Content-Type and Accept headers a POST may carry; "-"
// leaves the header out.
type HeaderCase struct{ ContentType, Accept string }

// HeaderCases are the headers the adapters' discover method must answer as their
// SDK answers every other method: both media types, each alone, neither, none, the
// wildcards, parameters, other cases, and Content-Types that are not JSON.
var HeaderCases = []HeaderCase{
	{"application/json", "application/json, text/event-stream"},
	{"application/json", "application/json"},
	{"application/json", "text/event-stream"},
	{"application/json", "text/html"},
	{"application/json", "-"},
	{"application/json", "*/*"},
	{"application/json", "application/*, text/*"},
	{"application/json; charset=utf-8", "application/json;q=0.9, text/event-stream"},
	{"application/json", "APPLICATION/JSON, Text/Event-Stream"},
	{"text/plain", "application/json, text/event-stream"},
	{"-", "application/json, text/event-stream"},
}

// An HTTPAnswer is what the header comparison looks at: the status, the base media
// type and the JSON-RPC shape of the body (Shape).
type HTTPAnswer struct {
	Status int
	Type   string
	Shape  string
}

// PostHeaders sends msg to url with h's headers, a bearer token and the session's id
// and protocol version, and returns the answer's status, media type and shape.
func PostHeaders(t testing.TB, url, token, session, version string, h HeaderCase, msg string) HTTPAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	if h.ContentType != "-" {
		req.Header.Set("Content-Type", h.ContentType)
	}
	if h.Accept != "-" {
		req.Header.Set("Accept", h.Accept)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", version)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return HTTPAnswer{Status: resp.StatusCode, Type: mt, Shape: Shape(body)}
}

// Shape is the JSON-RPC shape of an answer's body (the data of its event with an id,
// for an event stream): "result" and its id, the whole error object and its id, or
// the text of a body that holds no JSON-RPC response.
func Shape(body []byte) string {
	for _, ln := range bytes.Split(body, []byte("\n")) {
		ln = bytes.TrimSpace(bytes.TrimPrefix(ln, []byte("data: ")))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Error  json.RawMessage `json:"error"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(ln, &m) != nil || m.ID == nil {
			continue
		}
		if m.Result != nil {
			return "id " + string(m.ID) + " result"
		}
		return "id " + string(m.ID) + " error " + string(m.Error)
	}
	return "body " + string(bytes.TrimSpace(body))
}

// SameAnswer reports whether the discover method's answer d is the answer l another
// method got for the same headers: the same status and, for a refusal (a status other
// than 200 and 202), the same media type and the same shape; a 200 holds a result of
// the same id in both (the media type of a result may differ: an SDK may stream it).
func SameAnswer(l, d HTTPAnswer) bool {
	switch {
	case l.Status != d.Status:
		return false
	case l.Status == http.StatusOK:
		return l.Shape == d.Shape
	case l.Status == http.StatusAccepted:
		return true
	}
	return l.Type == d.Type && l.Shape == d.Shape
}
