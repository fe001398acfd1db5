package mcpgo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/server"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/discovery/wire"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
	"github.com/deferredtools/deferredtools/internal/tooldef"
	"github.com/deferredtools/deferredtools/safemode"
)

// The front: what Listen and Handler do with one raw message before mcp-go sees it.

// action is the front's verdict on one message.
type action int

const (
	passOn   action = iota // hand the message to mcp-go
	answered               // the front answered (or, for a notification, dropped) it
	discover               // the discover method: answer it with answerDiscover
)

// verdict is the front's decision on one message.
type verdict struct {
	act    action
	resp   []byte // the answer, when answered (empty for a dropped notification)
	status int    // the HTTP status of the answer
	env    envelope
}

// screen decides one raw message (SPEC CALL-1, VIS-2, ERR-2), appending any answer to
// dst. A tools/call is decided here in full, from the raw message: on its tool name
// first, before the arguments are looked at, then on its arguments, contract pin and
// the host's CheckCall, from the same grant read; only a call that passes goes on to
// mcp-go. The discovery tool is answered here, the discover method left to
// answerDiscover, and a malformed message refused content-free.
func (a *Adapter) screen(ctx context.Context, msg, dst []byte) verdict {
	env, fault := parseEnvelope(msg)
	if fault == "" && env.hasMethod && env.method == "tools/call" {
		if env.id == nil {
			return verdict{act: answered, status: http.StatusAccepted, env: env} // never run
		}
		if resp, ok := a.call(ctx, env, dst); ok {
			return verdict{act: answered, resp: resp, status: rpcwire.CallStatus(resp), env: env}
		}
		return verdict{act: passOn, env: env}
	}
	switch {
	case fault != "":
	case !utf8.Valid(msg):
		fault = discovery.CodeParseError
	case env.hasMethod && env.method == a.d.Method():
		return verdict{act: discover, env: env}
	default:
		return verdict{act: passOn, env: env}
	}
	return verdict{act: answered, resp: appendError(dst, env.id, fault), status: fault.Status(), env: env}
}

// callMembers are the members of tools/call params mcp-go reads.
var callMembers = []string{"name", "arguments", "_meta", "task"}

// call decides one tools/call request. ok reports that the front answered it (a
// refusal, an invalid-arguments result or the discovery tool's page; a discovery tool
// call whose id is over rpcwire.MaxToolIDBytes is refused, before the principal is
// read); otherwise the call is granted and valid, and goes on to mcp-go.
func (a *Adapter) call(ctx context.Context, env envelope, dst []byte) (resp []byte, ok bool) {
	m, ok := rpcwire.ExactMembers(env.params, callMembers)
	var name string
	if ok && m["name"] != nil {
		name, ok = tooldef.StringValue(m["name"])
	}
	if !ok || m["name"] == nil || !utf8.ValidString(name) || rpcwire.AmbiguousMeta(m["_meta"]) {
		return appendError(dst, env.id, discovery.CodeInvalidParams), true
	}
	discoveryTool := a.toolDef != nil && name == a.opts.DiscoveryTool
	if discoveryTool && len(env.id) > rpcwire.MaxToolIDBytes {
		// Its page is sized for an id of at most 64 bytes, written back as sent.
		return rpcwire.AppendToolIDError(dst, env.id), true
	}
	p, err := a.principal(ctx)
	if err != nil {
		return appendError(dst, env.id, discovery.CodeUnauthenticated), true
	}
	args := m["arguments"]
	pin, badPin := metaPin(m["_meta"])
	if discoveryTool {
		return a.discoveryTool(ctx, p, env.id, discovery.Call{Arguments: args, ContractPin: pin, BadContractPin: badPin}, dst), true
	}
	// The tool name alone (CALL-1), and a meta tool's action read alone from the raw
	// arguments (see discovery.CatalogOptions.MetaTools).
	finish, err := a.d.AuthorizeActionThen(ctx, p, name, args)
	if err != nil {
		return appendError(dst, env.id, rpcwire.CodeOf(err, discovery.CodeInternal)), true
	}
	err = finish(ctx, p, discovery.Call{Tool: name, Arguments: args, ContractPin: pin, BadContractPin: badPin,
		Confirmation: metaString(m["_meta"], safemode.MetaKey)}) // safe mode's token
	if err == nil {
		return nil, false
	}
	var de *discovery.Error
	if errors.As(err, &de) && de.Code == discovery.CodeInvalidArguments {
		return appendResult(dst, env.id, invalidArguments(de)), true
	}
	if cr, ok := err.(*discovery.ConfirmationRequired); ok {
		return appendResult(dst, env.id, preview(cr)), true
	}
	return appendError(dst, env.id, rpcwire.CodeOf(err, discovery.CodeCallRefused)), true
}

// bindFailure is the text mcp-go's typed tool handlers (NewTypedToolHandler,
// NewStructuredToolHandler) answer when the arguments do not decode into their Go
// type; the decoding error that follows quotes numbers it could not hold.
const bindFailure = "failed to bind arguments: "

// cleanCallResult returns the tools/call (or tasks/result: a call run as a task)
// response with id whose result says the typed handler could not bind the arguments
// (an integer or number the schema allows that its Go type cannot hold) as the
// content-free invalid-arguments result (SPEC ERR-2), the result's _meta kept (a task
// result's related task); changed is false for any other result.
func cleanCallResult(id, result []byte) (out []byte, changed bool) {
	m, ok := rpcwire.ExactMembers(result, []string{"isError", "content", "_meta"})
	if !ok || string(m["isError"]) != "true" || len(m["content"]) == 0 || m["content"][0] != '[' {
		return nil, false
	}
	var content []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(m["content"], &content) != nil || len(content) == 0 || !strings.HasPrefix(content[0].Text, bindFailure) {
		return nil, false
	}
	clean := invalidArguments(&discovery.Error{Code: discovery.CodeInvalidArguments})
	if meta := m["_meta"]; meta != nil {
		clean = append(append(append([]byte(`{"_meta":`), meta...), ','), clean[1:]...)
	}
	return appendResult(nil, id, clean), true
}

// cleanError rewrites msg's error content-free (rpcwire.CleanResponse) unless it is
// the library's own or, in the response to a tools/call the front let through (call),
// the error of the host's tool handler: one whose code is none of JSON-RPC's protocol
// codes (rpcwire.ProtocolCode), which mcp-go's own refusals of a call use. The
// handler never sees arguments the library rejected, so its text holds no library
// content (SPEC ERR-2). changed is false when msg needs no change.
func cleanError(msg []byte, call bool) (out []byte, changed bool) {
	if !call {
		return rpcwire.CleanResponse(msg)
	}
	if id, ok := toolNotFound(msg); ok {
		// Deleted from mcp-go's server while the catalog still held it (or hidden by
		// its tool filters), a task-augmented call's too: the answer of any unknown
		// tool (SPEC CALL-1).
		return appendError(nil, id, discovery.CodeToolNotGranted), true
	}
	return rpcwire.CleanResponseKeeping(msg, func(code int64, message string, data []byte) bool {
		return rpcwire.Own(message, data) || !rpcwire.ProtocolCode(code)
	})
}

// toolNotFound reports whether msg is mcp-go's refusal of a call of a tool it does not
// have, and its id: -32602 with a message wrapping server.ErrToolNotFound ("tool 'x'
// not found: tool not found", handleToolCall), or, for a task-augmented call (MCP's
// params.task) of a tool removed after that lookup, "tool 'x' not found", which
// handleTaskAugmentedToolCall writes without the wrap (mcp-go v1.2.1;
// TestTaskCallOfRemovedTool fails if an upgrade changes either).
func toolNotFound(msg []byte) (id []byte, ok bool) {
	m, ok := rpcwire.ExactMembers(msg, []string{"id", "error"})
	if !ok || m["id"] == nil || m["error"] == nil {
		return nil, false
	}
	e, ok := rpcwire.ExactMembers(m["error"], []string{"code", "message"})
	if !ok || string(e["code"]) != "-32602" {
		return nil, false
	}
	text, ok := tooldef.StringValue(e["message"])
	notFound := strings.HasSuffix(text, ": "+server.ErrToolNotFound.Error()) ||
		strings.HasPrefix(text, "tool '") && strings.HasSuffix(text, "' not found")
	return m["id"], ok && notFound
}

// preview is the tool result of a call safe mode holds (package safemode), as the
// mcpsdk adapter writes it: isError, since nothing ran; the text says so and holds the
// preview; the token travels in the result's _meta[safemode.MetaKey] only,
// not in the text the model reads.
func preview(cr *discovery.ConfirmationRequired) []byte {
	b := append([]byte(`{"_meta":{`), quote(safemode.MetaKey)...)
	b = append(append(b, ':'), quote(cr.Token)...)
	b = append(b, `},"content":[{"type":"text","text":`...)
	b = append(b, quote(cr.Text())...)
	return append(b, `}],"isError":true}`...)
}

// MetaContractDigest is the _meta member that carries the contract digest: in
// tools/list results, and, as the client's pin, in tools/call params (SPEC CONTRACT-2).
const MetaContractDigest = wire.MetaContractDigest

// metaString reads the string member key of params._meta (safe mode's confirmation
// token), or "" when it is absent or no string. The member's name is read with its
// escapes resolved, as mcp-go reads it: "contract\u005fdigest" is the pin
// (rpcwire.AmbiguousMeta has refused a name spelled twice or in another case).
func metaString(meta []byte, key string) string {
	m, _ := rpcwire.Members(meta, []string{key})
	s, _ := tooldef.StringValue(m[key])
	return s
}

// metaPin reads the client's contract pin from params._meta as metaString does; bad
// reports a pin member that is no string (a number, object, array, bool or null),
// which the call answers with invalid_params after its grants
// (discovery.Call.BadContractPin).
func metaPin(meta []byte) (pin string, bad bool) {
	m, _ := rpcwire.Members(meta, []string{MetaContractDigest})
	v, present := m[MetaContractDigest]
	if !present {
		return "", false
	}
	pin, isString := tooldef.StringValue(v)
	return pin, !isString
}

// invalidArguments is the tool result of a validation failure (SEP-1303): isError,
// and a text naming the keyword and the schema location, never a value (SPEC ERR-2).
func invalidArguments(e *discovery.Error) []byte {
	b := append([]byte(`{"content":[{"type":"text","text":`), quote(rpcwire.InvalidArgumentsText(e))...)
	return append(b, `}],"isError":true}`...)
}

// discoveryTool answers the discovery tool: the discover method's semantics, the page
// as structuredContent and as one text block. Invalid params and an invalid cursor are
// tool results with isError (the model can correct them); other refusals are errors,
// and so is a contract pin that is not the principal's contract digest
// (contract_changed) or no string (invalid_params), checked before the arguments as
// for any tools/call (SPEC CONTRACT-2), nothing served.
func (a *Adapter) discoveryTool(ctx context.Context, p grants.Principal, id []byte, c discovery.Call, dst []byte) []byte {
	if len(c.Arguments) == 0 {
		c.Arguments = []byte("{}")
	}
	res, err := a.d.DiscoverToolCall(ctx, p, c) // sized for this framing; the pin before the arguments
	if err != nil {
		code := rpcwire.CodeOf(err, discovery.CodeInternal)
		if code.JSONRPCCode() == discovery.CodeInvalidParams.JSONRPCCode() && !c.BadContractPin {
			b := append([]byte(`{"content":[{"type":"text","text":`), quote(string(code))...)
			return appendResult(dst, id, append(b, `}],"isError":true}`...))
		}
		return appendError(dst, id, code)
	}
	page := res.AppendJSON(nil)
	b := make([]byte, 0, 2*len(page)+96)
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = append(b, quote(string(page))...)
	b = append(b, `}],"structuredContent":`...)
	b = append(b, page...)
	return appendResult(dst, id, append(b, '}'))
}

// appendResult appends the JSON-RPC result response with id and result.
func appendResult(dst, id, result []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"result":`...)
	dst = append(dst, result...)
	return append(dst, '}')
}

// quote encodes s as a JSON string as mcp-go's encoder would, without escaping HTML.
func quote(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// answerDiscover answers a discover message (a call or a notification) from its bytes
// with Discoverer.AppendJSONRPC, whose page is sized for the real id (SPEC PAGE-1),
// and reports the HTTP status of the answer. A notification gets no answer.
func (a *Adapter) answerDiscover(ctx context.Context, env envelope, msg, dst []byte) ([]byte, int) {
	p, err := a.principal(ctx)
	if err != nil {
		if env.id == nil {
			return dst, http.StatusAccepted
		}
		return appendError(dst, env.id, discovery.CodeUnauthenticated), discovery.CodeUnauthenticated.Status()
	}
	resp, status := a.d.AppendJSONRPC(ctx, dst, p, msg)
	if status == 0 && env.id != nil {
		return appendError(dst, env.id, discovery.CodeMethodNotFound), discovery.CodeMethodNotFound.Status()
	}
	if status == 0 {
		status = http.StatusAccepted
	}
	return resp, status
}
