package adaptertest

import "github.com/deferredtools/deferredtools/discovery"

// An Edge is one hostile message that both adapters must answer alike: with the error
// Code, carrying the message's id when WithID (else a null id), with HTTP status Status
// (0: 200). ID in Msg stands for the message's id.
type Edge struct {
	Name   string
	Msg    string
	Code   discovery.Code
	WithID bool
	Status int
}

// SharedEdges are the edge cases the adapters' corpora share, for a principal who may
// call granted: repeated members of the message (read one way by one front and
// another by the SDK's decoder, so refused; the id is kept unless it is the member
// repeated) and a contract pin or safe mode's token named twice or in another case
// inside _meta (SPEC CONTRACT-2: one pin, read one way). canary marks the content no
// answer may carry.
func SharedEdges(granted, canary string) []Edge {
	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":` + params + `}`
	}
	meta := func(m string) string {
		return call(`{"name":"` + granted + `","arguments":{"city":"Oslo"},"_meta":` + m + `}`)
	}
	return []Edge{
		{Name: "duplicate method", Msg: `{"jsonrpc":"2.0","id":ID,"method":"ping","method":"` + canary + `"}`, Code: discovery.CodeInvalidRequest, WithID: true, Status: 400},
		{Name: "duplicate params, id last", Msg: `{"jsonrpc":"2.0","params":{},"method":"ping","params":{"x":"` + canary + `"},"id":ID}`, Code: discovery.CodeInvalidRequest, WithID: true, Status: 400},
		{Name: "duplicate id", Msg: `{"jsonrpc":"2.0","id":ID,"id":"` + canary + `","method":"ping"}`, Code: discovery.CodeInvalidRequest, Status: 400},
		{Name: "_meta pin twice", Msg: meta(`{"contract_digest":"sha256:00","contract_digest":"` + canary + `"}`), Code: discovery.CodeInvalidParams, WithID: true},
		{Name: "_meta pin twin", Msg: meta(`{"contract_digest":"sha256:00","Contract_Digest":"` + canary + `"}`), Code: discovery.CodeInvalidParams, WithID: true},
		{Name: "_meta token twice", Msg: meta(`{"deferredtools/confirmation":"x","deferredtools/confirmation":"` + canary + `"}`), Code: discovery.CodeInvalidParams, WithID: true},
	}
}

// PrivatePages are messages whose answers are one principal's pages, which an HTTP
// adapter must mark Cache-Control private, no-store (SPEC VIS-3, DISC-3 hardening): a
// narrowed tools/list, a discover answer (method names the discover method) and a call
// of the discovery tool named tool.
func PrivatePages(method, tool string) []string {
	return []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":{"query":"weather"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"query":"weather"}}}`,
	}
}
