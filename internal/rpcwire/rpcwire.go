// Package rpcwire holds the transport pieces an MCP adapter needs whatever SDK it wraps:
// bounded reading of newline-delimited and HTTP messages, the reading of member names
// no decoder can read another way (Members, Match), the content-free rewrite of
// JSON-RPC errors and the code a refusal is written with (CodeOf), the record of what a
// stdio connection owes its client and the bounded wait for it at the end of input
// (Owed), the bounded concurrency of front answers (GoBounded), the HTTP front's own
// answers (Answer) and the filter of the SDK handler's responses (Filter), and the
// small HTTP checks (Accept, Content-Type, DNS rebinding). It imports no SDK, so every
// adapter package shares it.
package rpcwire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/jsonlex"
)

// DefaultMaxLine is the stdio line cap when a transport names none: 16 MiB, the
// go-sdk's mcp.DefaultMaxLineLength.
const DefaultMaxLine = 16 << 20

// DefaultMaxBody is the HTTP body cap when a transport names none: 4 MiB, the go-sdk's
// mcp.DefaultMaxRequestBodyBytes.
const DefaultMaxBody = 4 << 20

// errTooLarge reports a message over its cap.
var errTooLarge = errors.New("rpcwire: message too large")

// readBounded reads all of r if it holds at most limit bytes; it stops reading at
// limit+1 bytes and answers errTooLarge, so memory stays bounded by the cap.
func readBounded(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errTooLarge
	}
	return b, nil
}

// A LineReader reads newline-delimited messages of at most Max bytes (MCP's stdio
// framing). A longer line is reported as too long and skipped to its newline without
// being kept, so memory stays bounded by Max whatever the peer sends.
type LineReader struct {
	r   *bufio.Reader
	max int
}

// NewLineReader returns a LineReader of r; max <= 0 means DefaultMaxLine.
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next line that is not blank, without its line ending (\n or
// \r\n); tooLong reports a line over the cap (b is then nil). A last line without a
// newline is a line all the same. err is the reader's error (io.EOF at the end).
func (l *LineReader) Next() (b []byte, tooLong bool, err error) {
	for {
		b, tooLong, err = l.read()
		if tooLong || err != nil || jsonlex.SkipSpace(b, 0) < len(b) {
			return b, tooLong, err
		}
	}
}

func (l *LineReader) read() (b []byte, tooLong bool, err error) {
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !tooLong {
			if n := len(b) + len(chunk); n > l.max+2 { // room for \r\n
				tooLong, b = true, nil
			} else {
				if n > cap(b) { // grow by doubling, never past the cap
					b = append(make([]byte, 0, min(max(2*cap(b), n), l.max+2)), b...)
				}
				b = append(b, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && !(err == io.EOF && (tooLong || len(b) > 0)) {
			return nil, false, err
		}
		break
	}
	if tooLong {
		return nil, true, nil
	}
	n := len(b)
	if n > 0 && b[n-1] == '\n' {
		n--
	}
	if n > 0 && b[n-1] == '\r' {
		n--
	}
	if n > l.max {
		return nil, true, nil
	}
	return b[:n], false, nil
}

// ValidID reports whether raw (a JSON value) is an id every SDK keeps exactly: a
// string, or an integer within ±2^53 (decoders read numbers as float64).
func ValidID(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || ('0' <= c && c <= '9'):
		f, err := strconv.ParseFloat(string(raw), 64)
		return err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53
	}
	return false
}

// MaxToolIDBytes is the longest request id, as the response writes it, of a discovery
// tool call the fronts answer with a page: Discoverer.DiscoverTool sizes its pages for
// a tools/call response whose id encodes in at most 64 bytes (SPEC PAGE-1), so a call
// with a longer id is refused (AppendToolIDError) rather than answered over 64 KiB.
const MaxToolIDBytes = 64

// AppendToolIDError appends the refusal of a discovery tool call whose id is longer
// than MaxToolIDBytes: invalid_request with that id, or with a null id when even the
// refusal would be over discovery.MaxResponseBytes (as Discoverer.AppendJSONRPC
// answers such an id of the discover method).
func AppendToolIDError(dst, id []byte) []byte {
	if len(id)+invalidRequestLen > discovery.MaxResponseBytes {
		id = nil
	}
	return discovery.AppendJSONRPCError(dst, id, discovery.CodeInvalidRequest)
}

// FitError returns msg, or, when msg is a JSON-RPC error response longer than
// discovery.MaxResponseBytes that its id makes so (with a null id it would fit), the
// fixed invalid_request with a null id, as Discoverer.AppendJSONRPC answers such an id
// of the discover method: an error the adapters write never exceeds 64 KiB (SPEC
// PAGE-1 for a discovery response; every other error alike). JSON-RPC writes the id
// of a request whose id cannot be answered as null; an error of n bytes besides its id
// carries any id of up to 65,536 - n bytes (invalid_request's n is 123: 65,413;
// tool_not_granted's 125). changed reports a replacement. Results (a tool's, a
// tools/list) are never changed.
func FitError(msg []byte) (out []byte, changed bool) {
	if len(msg) <= discovery.MaxResponseBytes {
		return msg, false
	}
	m, ok := ExactMembers(msg, fitMembers)
	if !ok || m["error"] == nil || m["result"] != nil || m["method"] != nil || m["id"] == nil ||
		len(msg)-len(m["id"])+len("null") > discovery.MaxResponseBytes {
		return msg, false
	}
	return append([]byte(nil), longIDRefusal...), true // the caller may append to it
}

// fitMembers are the members FitError reads.
var fitMembers = []string{"id", "error", "result", "method"}

// longIDRefusal is FitError's answer.
var longIDRefusal = discovery.AppendJSONRPCError(nil, nil, discovery.CodeInvalidRequest)

// invalidRequestLen is the length of the invalid_request error response without its id.
var invalidRequestLen = len(longIDRefusal) - len("null")

// AppendError appends the JSON-RPC error response {"jsonrpc":"2.0","id":ID,"error":
// {"code":N,"message":"<code>","data":{"error":"<code>","status":S}}} with N the given
// JSON-RPC code and S the given HTTP status; an empty id is written null. With n =
// code.JSONRPCCode() and status = code.Status() it is discovery.AppendJSONRPCError's
// form.
func AppendError(dst, id []byte, code discovery.Code, n int64, status int) []byte {
	if len(id) == 0 {
		id = []byte("null")
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, n, 10)
	dst = append(dst, `,"message":`...)
	dst = strconv.AppendQuote(dst, string(code))
	dst = append(dst, `,"data":{"error":`...)
	dst = strconv.AppendQuote(dst, string(code))
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendInt(dst, int64(status), 10)
	return append(dst, "}}}"...)
}

// ProtocolCode reports one of JSON-RPC's codes for a request the server could not
// take (-32700 parse error, -32600 invalid request, -32601 method not found, -32602
// invalid params): an SDK writes them for what it refused itself, quoting the request,
// never for a failure of the host's handler that it passes on.
func ProtocolCode(n int64) bool {
	return n == -32700 || n == -32600 || n == -32601 || n == -32602
}

// ContentFree is the code an SDK error of JSON-RPC code n is rewritten to: the fixed
// word of a standard code, else discovery.CodeServerError (written with n kept).
func ContentFree(n int64) discovery.Code {
	switch n {
	case -32700:
		return discovery.CodeParseError
	case -32600:
		return discovery.CodeInvalidRequest
	case -32601:
		return discovery.CodeMethodNotFound
	case -32602:
		return discovery.CodeInvalidParams
	case 0, -32603:
		return discovery.CodeInternal
	}
	return discovery.CodeServerError
}

// Own reports whether an error object is one the library wrote: its message one of
// discovery.Codes and its data exactly {"error": message, "status": S}.
func Own(message string, data []byte) bool {
	if !codes[discovery.Code(message)] {
		return false
	}
	var d struct {
		Error  string `json:"error"`
		Status int    `json:"status"`
	}
	if json.Unmarshal(data, &d) != nil || d.Error != message {
		return false
	}
	want := `{"error":` + strconv.Quote(message) + `,"status":` + strconv.Itoa(d.Status) + `}`
	var got bytes.Buffer
	return json.Compact(&got, data) == nil && got.String() == want
}

// codes are the codes the library writes, as a set.
var codes = func() map[discovery.Code]bool {
	m := make(map[discovery.Code]bool)
	for _, c := range discovery.Codes() {
		m[c] = true
	}
	return m
}()

// CleanResponse rewrites one encoded JSON-RPC response whose error is not the
// library's into the content-free error of its code, with its id (SPEC ERR-2): SDK
// errors quote methods, params and argument values. ok is false when msg needs no
// change: a result, a request, a notification, the library's own error, or text that
// is not one JSON-RPC object.
func CleanResponse(msg []byte) (out []byte, ok bool) {
	return CleanResponseKeeping(msg, nil)
}

// CleanResponseKeeping is CleanResponse for an adapter that lets more errors out
// unchanged: keep (nil: Own) reports an error object that may leave as it is.
func CleanResponseKeeping(msg []byte, keep func(code int64, message string, data []byte) bool) (out []byte, ok bool) {
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if keep == nil {
		keep = func(_ int64, message string, data []byte) bool { return Own(message, data) }
	}
	if json.Unmarshal(msg, &r) != nil || r.Error == nil || keep(r.Error.Code, r.Error.Message, r.Error.Data) {
		return nil, false
	}
	code := ContentFree(r.Error.Code)
	n := int64(code.JSONRPCCode())
	if code == discovery.CodeServerError {
		n = r.Error.Code
	}
	return AppendError(nil, r.ID, code, n, code.Status()), true
}

// sseEvent frames one JSON-RPC message as a text/event-stream "message" event.
func sseEvent(msg []byte) []byte {
	b := make([]byte, 0, len(msg)+32)
	b = append(b, "event: message\ndata: "...)
	b = append(b, msg...)
	return append(b, "\n\n"...)
}

// acceptsJSON reports whether the request's Accept header takes application/json (or
// says nothing): then answers are JSON bodies, else text/event-stream events.
func acceptsJSON(r *http.Request) bool {
	values := r.Header.Values("Accept")
	if len(values) == 0 {
		return true
	}
	streamOnly := false
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			switch mt {
			case "application/json", "application/*", "*/*":
				return true
			case "text/event-stream":
				streamOnly = true
			}
		}
	}
	return !streamOnly
}

// IsJSON reports a Content-Type of application/json.
func IsJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// rebound reports a request that arrived on a loopback address with a Host header
// that is not a loopback name: a DNS rebinding attempt, which SDK handlers refuse and
// so must an adapter answering in front of them.
func rebound(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && local != nil && isLoopback(local.String()) && !isLoopback(r.Host)
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// InvalidArgumentsText is the text of the tool result of a validation failure
// (SEP-1303): the keyword and the schema location, never a value (SPEC ERR-2).
func InvalidArgumentsText(e *discovery.Error) string {
	text := "invalid arguments"
	if e.Keyword != "" {
		text += ": keyword " + strconv.Quote(e.Keyword) + " failed at schema location " + strconv.Quote(e.Path)
	}
	return text
}

// CodeOf is the code a refusal err is written with: an *discovery.Error's or a
// discovery.Code's anywhere in its chain, else unknown (a host's error, whose text
// must not reach the wire).
func CodeOf(err error, unknown discovery.Code) discovery.Code {
	var de *discovery.Error
	if errors.As(err, &de) {
		return de.Code
	}
	var code discovery.Code
	if errors.As(err, &code) {
		return code
	}
	return unknown
}
