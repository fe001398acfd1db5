package adaptertest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
)

// A LongIDCase is a request an adapter answers without running a host's tool, its id
// written "ID": a refusal of its front, of the Discoverer or of the SDK, or a result
// the adapter decides (a discovery tool page, invalid arguments).
type LongIDCase struct {
	Name, Msg string
	// DiscoveryTool marks a call of the discovery tool ("search_tools"), whose page is
	// sized for an id of at most 64 bytes: a longer id is refused with invalid_request.
	DiscoveryTool bool
	// Discoverer marks a refusal the Discoverer writes (discovery.AppendJSONRPC): it
	// answers LongIDRefusal for an id longer than 64 KiB less its longest error's
	// envelope, whatever the error, so from a shorter id than the adapters' own rule.
	Discoverer bool
}

// LongIDCases are the cases for a catalog where granted is a tool the principal may
// call, with valid and invalid arguments, and denied one it may not.
func LongIDCases(granted, valid, invalid, denied string) []LongIDCase {
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	}
	disc := func(params string) string {
		return `{"jsonrpc":"2.0","id":ID,"method":"multillm.tools.discover","params":` + params + `}`
	}
	return []LongIDCase{
		{Name: "discover limit 99", Msg: disc(`{"query":"weather","limit":99}`), Discoverer: true},
		{Name: "discover forged cursor", Msg: disc(`{"query":"weather","cursor":"AAAA"}`), Discoverer: true},
		{Name: "discover query twice", Msg: disc(`{"query":"weather","query":"x"}`), Discoverer: true},
		{Name: "discover params not an object", Msg: disc(`7`), Discoverer: true},
		{Name: "discover Params twin", Msg: `{"jsonrpc":"2.0","id":ID,"method":"multillm.tools.discover","params":{"query":"weather"},"Params":{}}`},
		{Name: "discovery tool", Msg: call("search_tools", `{"query":"weather"}`), DiscoveryTool: true},
		{Name: "discovery tool, limit 99", Msg: call("search_tools", `{"query":"weather","limit":99}`), DiscoveryTool: true},
		{Name: "discovery tool named twice", Msg: `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"search_tools","name":"search_tools","arguments":{"query":"weather"}}}`},
		{Name: "unknown tool", Msg: call("no_such_tool", `{}`)},
		{Name: "denied tool", Msg: call(denied, `{}`)},
		{Name: "name not a string", Msg: `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":7,"arguments":{}}}`},
		{Name: "Name twin", Msg: `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"` + granted + `","Name":"x","arguments":` + valid + `}}`},
		{Name: "Method twin", Msg: `{"jsonrpc":"2.0","id":ID,"method":"ping","Method":"ping"}`},
		{Name: "unknown method", Msg: `{"jsonrpc":"2.0","id":ID,"method":"no/such"}`},
		{Name: "stale pin", Msg: `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"` + granted + `","arguments":` + valid + `,"_meta":{"contract_digest":"sha256:00"}}}`},
		{Name: "invalid arguments", Msg: call(granted, invalid)},
		{Name: "invalid UTF-8", Msg: call(granted, `{"x":"`+"\xff"+`"}`)},
	}
}

// CatalogLongIDs are LongIDCases for Tools under Rows as Alice: weather_get granted,
// secrets_read never (no row names it). Both adapters' long-id tests send them.
var CatalogLongIDs = LongIDCases("weather_get", `{"city":"Oslo"}`, `{"city":"O"}`, "secrets_read")

// longIDs are the id lengths, in bytes as sent, of CheckLongIDs: the first is the
// reference.
var longIDs = []int{64, 8 << 10, 70_000}

// LongIDRefusal is the answer to a request whose id is too long for its error
// response to carry it within discovery.MaxResponseBytes: invalid_request, id null.
const LongIDRefusal = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid_request","data":{"error":"invalid_request","status":400}}}`

// CheckLongIDs sends c with ids of each length of longIDs (strings of "i") through
// send, which returns the answer and its HTTP status (0 on stdio), and checks that
// each longer id gets the answer of the 64-byte one, byte for byte, carrying its own
// id, but where that cannot fit: an error response is at most
// discovery.MaxResponseBytes, LongIDRefusal when the id would make it longer (SPEC
// PAGE-1 for a discovery response; the same rule for every error the adapter writes),
// and a discovery tool call with an id over 64 bytes is refused with invalid_request
// carrying the id. Results (invalid arguments) carry the id whatever its length, as
// every tool result does. An error is also sent with the two ids at the bound: the one
// whose answer is exactly MaxResponseBytes carries it (but for the Discoverer's own
// refusals), one byte more answers LongIDRefusal. A carried answer keeps the 64-byte
// id's status, LongIDRefusal has invalid_request's (400) in place of an error status
// and keeps 200.
func CheckLongIDs(t testing.TB, c LongIDCase, send func(msg string) (answer []byte, status int)) {
	t.Helper()
	id := func(n int) string { return `"` + strings.Repeat("i", n-2) + `"` }
	ref, refStatus := send(strings.Replace(c.Msg, "ID", id(longIDs[0]), 1))
	if !bytes.Contains(ref, []byte(`"id":`+id(longIDs[0]))) {
		t.Fatalf("%s: the answer to a 64-byte id does not carry it: %.300s", c.Name, ref)
	}
	isError := DecodeError(t, ref) != nil
	fittedStatus := refStatus
	if refStatus >= 400 {
		fittedStatus = discovery.CodeInvalidRequest.Status()
	}
	ids := longIDs[1:]
	atBound := discovery.MaxResponseBytes - len(ref) + longIDs[0] // the id whose answer is exactly MaxResponseBytes
	if isError && !c.DiscoveryTool {
		ids = append(ids, atBound, atBound+1)
	}
	for _, n := range ids {
		got, status := send(strings.Replace(c.Msg, "ID", id(n), 1))
		var want []byte
		switch {
		case c.DiscoveryTool && n+len(LongIDRefusal)-len("null") > discovery.MaxResponseBytes:
			want = []byte(LongIDRefusal)
		case c.DiscoveryTool:
			want = []byte(strings.Replace(LongIDRefusal, "null", id(n), 1))
		case isError && (len(ref)-longIDs[0]+n > discovery.MaxResponseBytes || c.Discoverer && n >= atBound):
			want = []byte(LongIDRefusal)
		default:
			want = bytes.Replace(ref, []byte(id(longIDs[0])), []byte(id(n)), 1)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s, id of %d bytes: answer of %d bytes %.200s…, want %d bytes %.200s…", c.Name, n, len(got), got, len(want), want)
		}
		wantStatus := refStatus
		if bytes.Equal(want, []byte(LongIDRefusal)) {
			wantStatus = fittedStatus
		}
		if status != wantStatus {
			t.Errorf("%s, id of %d bytes: HTTP status %d, want %d", c.Name, n, status, wantStatus)
		}
	}
}
