package mcpgo

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/internal/jsonlex"
	"github.com/deferredtools/deferredtools/internal/rpcwire"
	"github.com/deferredtools/deferredtools/internal/tooldef"
)

// cacheScopePrivate is the SEP-2549 cacheScope of every narrowed tools/list result: the
// list is one principal's, so no shared cache may serve it to another.
const cacheScopePrivate = `"private"`

// narrowList rewrites mcp-go's response to one tools/list request for the principal of
// ctx (SPEC VIS-3, PAGE-5, CONTRACT-2): a listed tool stays when the principal's
// authorised set holds it, and is served as the catalog's canonical definition, byte
// for byte as discover serves it; the discovery tool is appended to the last page (no
// nextCursor); _meta gains contract_digest and cacheScope is "private". Every other
// member of the response and of the result stays as mcp-go wrote it. An error response
// is returned as it is; a result that is not an object with a tools array, or a
// principal or grant read that fails, answers an error with the response's id: nothing
// is listed rather than everything.
func (a *Adapter) narrowList(ctx context.Context, resp []byte) []byte {
	top, ok := rpcwire.ExactMembers(resp, []string{"id", "result"})
	if !ok || top["result"] == nil {
		return resp
	}
	id := top["id"]
	p, err := a.principal(ctx)
	if err != nil {
		return appendError(nil, id, discovery.CodeUnauthenticated)
	}
	list, err := a.d.ListTools(ctx, p)
	if err != nil {
		return appendError(nil, id, rpcwire.CodeOf(err, discovery.CodeGrantsUnavailable))
	}
	result, ok := a.narrowResult(top["result"], list)
	if !ok {
		return appendError(nil, id, discovery.CodeCatalogUnavailable)
	}
	out := make([]byte, 0, len(resp)+len(result))
	out = append(out, '{')
	tooldef.Members(resp, func(key, val []byte) bool {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(out, key...), ':')
		if string(key) == `"result"` {
			val = result
		}
		out = append(out, val...)
		return true
	})
	return append(out, '}')
}

// narrowResult is narrowList's new result object.
func (a *Adapter) narrowResult(result []byte, list *discovery.ListResult) ([]byte, bool) {
	m, ok := rpcwire.ExactMembers(result, []string{"tools", "nextCursor", "_meta", "cacheScope"})
	if !ok || len(m["tools"]) == 0 || m["tools"][0] != '[' {
		return nil, false
	}
	tools := []byte{'['}
	add := func(def []byte) {
		if len(tools) > 1 {
			tools = append(tools, ',')
		}
		tools = append(tools, def...)
	}
	ok = eachElement(m["tools"], func(t []byte) bool {
		tm, ok := rpcwire.ExactMembers(t, []string{"name"})
		if !ok {
			return false
		}
		name, ok := tooldef.StringValue(tm["name"])
		if !ok {
			return false
		}
		if name == a.opts.DiscoveryTool && a.toolDef != nil {
			return true
		}
		if def, ok := list.Tool(name); ok { // as served to this principal (a meta tool's actions narrowed)
			add(def)
		}
		return true
	})
	if !ok {
		return nil, false
	}
	last := true
	if c := m["nextCursor"]; c != nil {
		s, isString := tooldef.StringValue(c)
		last = isString && s == ""
	}
	if a.toolDef != nil && last {
		add(a.toolDef)
	}
	tools = append(tools, ']')

	meta, ok := withDigest(m["_meta"], list.ContractDigest)
	if !ok {
		return nil, false
	}
	out := make([]byte, 0, len(result)+len(tools))
	out = append(out, '{')
	member := func(key string, val []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(strconv.AppendQuote(out, key), ':'), val...)
	}
	tooldef.Members(result, func(key, val []byte) bool {
		switch string(key) {
		case `"tools"`:
			val = tools
		case `"_meta"`:
			val = meta
		case `"cacheScope"`:
			val = []byte(cacheScopePrivate)
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, key...), ':'), val...)
		return true
	})
	if m["_meta"] == nil {
		member("_meta", meta)
	}
	if m["cacheScope"] == nil {
		member("cacheScope", []byte(cacheScopePrivate))
	}
	return append(out, '}'), true
}

// withDigest returns the _meta object meta (absent: {}) with contract_digest set to
// digest, its other members kept.
func withDigest(meta []byte, digest string) ([]byte, bool) {
	d, _ := json.Marshal(digest)
	out := []byte(`{"` + MetaContractDigest + `":`)
	out = append(out, d...)
	if len(meta) == 0 || string(meta) == "null" {
		return append(out, '}'), true
	}
	m, ok := rpcwire.ExactMembers(meta, []string{MetaContractDigest})
	if !ok || m == nil {
		return nil, false
	}
	tooldef.Members(meta, func(key, val []byte) bool {
		if string(key) != `"`+MetaContractDigest+`"` {
			out = append(append(append(append(out, ','), key...), ':'), val...)
		}
		return true
	})
	return append(out, '}'), true
}

// eachElement calls fn with each element of the JSON array b (text jsonlex.Valid
// accepted) until fn answers false; it reports whether every call answered true.
func eachElement(b []byte, fn func(v []byte) bool) bool {
	i := jsonlex.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = jsonlex.SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for i < len(b) {
		end := jsonlex.SkipValue(b, i)
		if !fn(b[i:end]) {
			return false
		}
		i = jsonlex.SkipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			break
		}
		i = jsonlex.SkipSpace(b, i+1)
	}
	return true
}
