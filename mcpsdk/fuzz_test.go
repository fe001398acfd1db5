package mcpsdk_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fuzzSeeds are the small messages of the edge corpus and a few well-formed ones; the
// committed seed corpora under testdata/fuzz hold the same and more.
func fuzzSeeds() []string {
	var seeds []string
	for _, e := range edgeCorpus("secrets_read", "weather_get") {
		if strings.Contains(e.name, "MB") {
			continue
		}
		var b bytes.Buffer
		e.write(&b, `"s1"`)
		seeds = append(seeds, b.String())
	}
	return append(seeds,
		`{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"weather","limit":2}}`,
		`{"jsonrpc":"2.0","id":"a","method":"multillm.tools.discover","params":{"query":"weather","extra":"`+canary+`"}}`,
		`{"jsonrpc":"2.0","method":"multillm.tools.discover","params":{"query":"weather"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"Oslo"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather_get","arguments":{"city":"`+canary+`","x":1}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"`+canary+`","limit":99}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"`+canary+`"}}`,
		`{"jsonrpc":"2.0","id":"`+canary+`","method":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}",
		``, `null`, `{`, `{"method":1}`, "\r", "\xff",
	)
}

// contentFreeAnswer checks one answer the server wrote: a JSON-RPC response (or notification)
// whose error, if any, is content-free (message = data.error, a code word), and in
// which the canary appears nowhere but in the echoed id (SPEC ERR-2).
func contentFreeAnswer(t *testing.T, b []byte) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("answer %.300q is not one JSON object: %v", b, err)
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		t.Fatalf("answer %.300q is not JSON-RPC 2.0", b)
	}
	if raw, ok := m["error"]; ok {
		var e rpcErr
		if err := json.Unmarshal(raw, &e); err != nil || !codeWord.MatchString(e.Message) || e.Message != e.Data.Error {
			t.Fatalf("error %.300s is not content-free", raw)
		}
	}
	delete(m, "id")
	rest, _ := json.Marshal(m)
	if bytes.Contains(rest, []byte(canary)) {
		t.Fatalf("answer %.300q carries the canary outside its id", b)
	}
}

var codeWord = regexp.MustCompile(`^[a-z][a-z_]*$`)

// FuzzStdio writes arbitrary bytes, then a ping, to a session of the adapter's
// Transport over an IOTransport. Whatever the bytes: no panic, every line the server
// writes is a JSON-RPC message with content-free errors and no canary outside its id,
// and the ping is answered: the session goes on.
func FuzzStdio(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s))
	}
	fx, err := buildFixture(fixtureOptions{enabled: true, principal: bob, tool: "search_tools"})
	if err != nil {
		f.Fatal(err)
	}
	const pingID = `"fuzz-ping-5c1d"`
	f.Fuzz(func(t *testing.T, in []byte) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ss, err := fx.server.Connect(t.Context(), fx.a.Transport(&mcp.IOTransport{Reader: inR, Writer: outW}), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { inW.Close(); outR.Close(); ss.Close() }()
		go func() {
			io.WriteString(inW, `{"jsonrpc":"2.0","id":"fuzz-init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}`+"\n")
			io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			inW.Write(append(append([]byte(nil), in...), '\n'))
			io.WriteString(inW, `{"jsonrpc":"2.0","id":`+pingID+`,"method":"ping"}`+"\n")
		}()
		lines := readLines(outR, 0)
		timeout := time.After(10 * time.Second)
		for {
			select {
			case b, ok := <-lines:
				if !ok {
					t.Fatal("the session ended")
				}
				contentFreeAnswer(t, b)
				if bytes.Contains(b, []byte(`"id":`+pingID+`,"result":{}`)) {
					return
				}
			case <-timeout:
				t.Fatal("the ping after the input was not answered within 10 s")
			}
		}
	})
}

// FuzzHandler posts arbitrary bodies to Handler in front of the SDK's streamable
// handler (stateless, so that every POST stands alone), then a ping. Whatever the
// body: no panic; a JSON-RPC error in a JSON body or an event stream is content-free;
// a text/plain error body is the status text; nothing carries the canary outside an
// echoed id; the ping that follows is answered 200.
func FuzzHandler(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s))
	}
	fx, err := buildFixture(fixtureOptions{enabled: true, principal: bob, tool: "search_tools"})
	if err != nil {
		f.Fatal(err)
	}
	h := fx.a.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return fx.server },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	post := func(body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := post(body)
		out := rec.Body.Bytes()
		switch ct := rec.Header().Get("Content-Type"); {
		case rec.Code == http.StatusAccepted && len(out) == 0:
		case strings.HasPrefix(ct, "text/plain"):
			if rec.Code < 400 || string(out) != http.StatusText(rec.Code)+"\n" {
				t.Fatalf("status %d with text body %.300q, want the status text", rec.Code, out)
			}
		case strings.HasPrefix(ct, "text/event-stream"):
			for _, ln := range bytes.Split(out, []byte("\n")) {
				if d, ok := bytes.CutPrefix(ln, []byte("data: ")); ok && len(d) > 0 {
					contentFreeAnswer(t, d)
				}
			}
		case strings.HasPrefix(ct, "application/json"):
			contentFreeAnswer(t, out)
			var e struct {
				Error *rpcErr `json:"error"`
			}
			json.Unmarshal(out, &e)
			if e.Error != nil && rec.Code != http.StatusOK && rec.Code != e.Error.Data.Status {
				t.Fatalf("status %d with error %.300s", rec.Code, out)
			}
		default:
			t.Fatalf("status %d, Content-Type %q, body %.300q", rec.Code, ct, out)
		}
		if rec := post([]byte(`{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}`)); rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"result":{}`)) {
			t.Fatalf("ping after the body answered %d %.300q", rec.Code, rec.Body.Bytes())
		}
	})
}

var updateSeeds = flag.Bool("update-seeds", false, "write the fuzz seed corpora under testdata/fuzz")

// TestWriteSeeds writes fuzzSeeds as the committed seed corpora of FuzzStdio and
// FuzzHandler when -update-seeds is given; plain go test replays the files.
func TestWriteSeeds(t *testing.T) {
	if !*updateSeeds {
		t.Skip("writes testdata/fuzz only with -update-seeds")
	}
	for _, target := range []string{"FuzzStdio", "FuzzHandler"} {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, s := range fuzzSeeds() {
			data := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
			sum := sha256.Sum256([]byte(data))
			if err := os.WriteFile(filepath.Join(dir, "seed-"+hex.EncodeToString(sum[:8])), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
