package discovery_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/deferredtools/deferredtools/cursor"
	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/internal/catalogtest"
	"github.com/deferredtools/deferredtools/rank"
)

// vocabulary of the generated catalogs: the words of a model-hosting platform.
var vocabulary = strings.Fields(`model models dataset datasets deployment deploy endpoint
	registry search list get create update delete upload download version versions tag tags
	metric metrics evaluation evaluate benchmark compare training train job jobs run runs
	artifact artifacts checkpoint checkpoints billing invoice usage cost budget quota project
	projects team member members permission role secret secrets token tokens webhook log logs
	alert alerts schedule pipeline pipelines feature features store stores vector index
	embedding embeddings prompt prompts template templates batch inference latency gpu cpu
	replica replicas scale status health region cluster node nodes storage bucket file files
	report reports export import card license licence audit event events notebook`)

// genTool returns a realistic tool definition of about size bytes, its name made
// unique by i, and its description.
func genTool(r *rand.Rand, i, size int) (json.RawMessage, string, string) {
	w := func() string { return vocabulary[r.IntN(len(vocabulary))] }
	name := fmt.Sprintf("%s_%s_%04d", w(), w(), i)
	words := make([]string, 4+r.IntN(20))
	for j := range words {
		words[j] = w()
	}
	desc := strings.ToUpper(words[0][:1]) + strings.Join(words, " ")[1:] + "."
	props, required := catalogtest.Properties(r, w, len(name)+len(desc)+120, size)
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		schema["required"] = required
	}
	def := map[string]any{"name": name, "description": desc, "inputSchema": schema}
	if r.IntN(3) == 0 {
		def["annotations"] = map[string]any{"readOnlyHint": r.IntN(2) == 0, "title": strings.ToUpper(w())}
	}
	b, err := json.Marshal(def)
	if err != nil {
		panic(err)
	}
	return b, name, desc
}

// genCatalog returns n generated tools of 1-7 KB, a few of 7-30 KB.
func genCatalog(r *rand.Rand, n int) []json.RawMessage {
	tools := make([]json.RawMessage, n)
	for i := range tools {
		size := 1000 + r.IntN(6000)
		if r.IntN(20) == 0 {
			size = 7000 + r.IntN(23000)
		}
		tools[i], _, _ = genTool(r, i, size)
	}
	return tools
}

// genQuery returns one to three vocabulary words.
func genQuery(r *rand.Rand) string {
	q := make([]string, 1+r.IntN(3))
	for i := range q {
		q[i] = vocabulary[r.IntN(len(vocabulary))]
	}
	return strings.Join(q, " ")
}

// oracle ranks query over the tools of cat that granted allows, all of them, with the
// rank package directly: the one big ranking that paging must reproduce.
func oracle(t testing.TB, cat *discovery.Catalog, granted map[string]bool, query string) []string {
	return newOracle(t, cat, granted).rank(query)
}

// An oracleIndex is the rank index of a catalog's authorised tools, built once.
type oracleIndex struct {
	names   []string
	index   *rank.Index
	allowed rank.Set
}

func newOracle(t testing.TB, cat *discovery.Catalog, granted map[string]bool) *oracleIndex {
	t.Helper()
	names := cat.Names()
	docs := make([]rank.Doc, len(names))
	allowed := rank.NewSet(len(names))
	for i, n := range names {
		raw, _ := cat.Tool(n)
		var f struct {
			Title       string          `json:"title"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Annotations struct {
				Title string `json:"title"`
			} `json:"annotations"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		docs[i] = rank.Doc{Name: n, Title: cmp.Or(f.Title, f.Annotations.Title), Description: f.Description, Params: rank.ParamText(f.InputSchema)}
		if granted[n] {
			allowed.Add(i)
		}
	}
	return &oracleIndex{names: names, index: rank.NewIndex(docs), allowed: allowed}
}

func (o *oracleIndex) rank(query string) []string {
	hits := o.index.Search(nil, query, o.allowed, 0)
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = o.names[h.Doc]
	}
	return out
}

// rpcPage is one decoded discover response.
type rpcPage struct {
	raw    []byte
	tools  []json.RawMessage
	cursor string
	err    discovery.Code
}

func decodePage(t testing.TB, resp []byte) rpcPage {
	t.Helper()
	var env struct {
		Result *struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(resp, &env); err != nil {
		t.Fatalf("response is not JSON: %v: %.200s", err, resp)
	}
	if env.Error != nil {
		return rpcPage{raw: resp, err: discovery.Code(env.Error.Message)}
	}
	return rpcPage{raw: resp, tools: env.Result.Tools, cursor: env.Result.NextCursor}
}

// parseRPCPage checks a discover response byte for byte: the envelope with id, then
// whole tools that must be exactly want[0], want[1], ... (the ranking's next tools),
// then an optional cursor, the cache hints and the _meta. It returns how many tools the page holds and
// its cursor, or the error code of an error response.
func parseRPCPage(t testing.TB, resp []byte, id string, want [][]byte) (n int, cur string, code discovery.Code) {
	t.Helper()
	if bytes.HasPrefix(resp, []byte(`{"jsonrpc":"2.0","id":`+id+`,"error":`)) {
		return 0, "", decodePage(t, resp).err
	}
	p := []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[`)
	if !bytes.HasPrefix(resp, p) {
		t.Fatalf("response starts %.80s, want %s", resp, p)
	}
	rest := resp[len(p):]
	for len(rest) > 0 && rest[0] != ']' {
		if n > 0 {
			if rest[0] != ',' {
				t.Fatalf("tool %d is not followed by a comma", n-1)
			}
			rest = rest[1:]
		}
		if n >= len(want) || !bytes.HasPrefix(rest, want[n]) {
			t.Fatalf("tool %d of the page is not the next tool of the ranking", n)
		}
		rest = rest[len(want[n]):]
		n++
	}
	rest = rest[1:]
	if c, ok := bytes.CutPrefix(rest, []byte(`,"nextCursor":"`)); ok {
		end := bytes.IndexByte(c, '"')
		cur, rest = string(c[:end]), c[end+1:]
	}
	m, ok := bytes.CutPrefix(rest, []byte(`,"ttlMs":0,"cacheScope":"private","_meta":{"contract_digest":"sha256:`))
	if !ok || len(m) != 64+len(`"}}}`) || string(m[64:]) != `"}}}` {
		t.Fatalf("page ends %q", rest)
	}
	return n, cur, ""
}

// discoverMsg frames a discover request with the JSON-RPC id id.
func discoverMsg(id, query string, limit int, cur string) []byte {
	p := map[string]any{"query": query, "limit": limit}
	if cur != "" {
		p["cursor"] = cur
	}
	params, _ := json.Marshal(p)
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"multillm.tools.discover","params":` + string(params) + `}`)
}

// SPEC PAGE-1, PAGE-2, PAGE-4 (property, seeded): over generated catalogs (tools of
// 1-7 KB, some up to 30 KB), random grants, queries, limits and ids up to 20,000 bytes,
// every HandleJSONRPC response is at most 65,536 bytes; a page holds at most limit
// whole tools; a page short of limit could not have held the next tool; and walking
// every page yields each ranked tool exactly once, in the order of one big ranking.
func TestPagingProperties(t *testing.T) {
	ctx := t.Context()
	seeds := 4
	if testing.Short() {
		seeds = 2
	}
	walks, pages, short := 0, 0, 0
	for seed := range uint64(seeds) {
		r := rand.New(rand.NewPCG(seed, 0x5eed))
		cat, err := discovery.NewCatalog(genCatalog(r, 250), nil)
		if err != nil {
			t.Fatal(err)
		}
		granted := map[string]bool{}
		var rows []grants.Row
		for _, n := range cat.Names() {
			if r.IntN(10) < 7 {
				granted[n] = true
				rows = append(rows, allow("alice", n))
			} else if r.IntN(2) == 0 {
				rows = append(rows, allow("alice", n, "missing:scope"))
			}
		}
		d := newDiscoverer(cat, newStore(t, rows...), nil)
		orc := newOracle(t, cat, granted)
		for range 12 {
			q := genQuery(r)
			limit := 1 + r.IntN(16)
			id := []string{"1", "-42", `"` + strings.Repeat("i", r.IntN(2000)) + `"`, `"` + strings.Repeat("\\u00e9", 3000+r.IntN(400)) + `"`}[r.IntN(4)]
			want := orc.rank(q)
			wantRaw := make([][]byte, len(want))
			for i, n := range want {
				wantRaw[i], _ = cat.Tool(n)
			}
			got, cur := 0, ""
			walks++
			for {
				resp, status := d.HandleJSONRPC(ctx, alice, discoverMsg(id, q, limit, cur))
				if status == 0 {
					t.Fatal("not handled")
				}
				pages++
				if len(resp) > discovery.MaxResponseBytes {
					t.Fatalf("seed %d %q: response of %d bytes", seed, q, len(resp))
				}
				n, next, code := parseRPCPage(t, resp, id, wantRaw[got:])
				if code != "" {
					t.Fatalf("seed %d %q limit %d id %d bytes: %s", seed, q, limit, len(id), code)
				}
				if n > limit || (n == 0 && len(want) > 0) {
					t.Fatalf("seed %d %q: %d tools on a page, limit %d", seed, q, n, limit)
				}
				got += n
				if got < len(want) && n < limit {
					// PAGE-2: the next tool could not have fit.
					short++
					size := len(resp) + 1 + len(wantRaw[got])
					if got+1 == len(want) { // it was the last: no cursor needed
						size -= len(`,"nextCursor":""`) + len(next)
					}
					if size <= discovery.MaxResponseBytes {
						t.Errorf("seed %d %q: page of %d tools (%d bytes) left out %s (%d bytes) that fit", seed, q, n, len(resp), want[got], len(wantRaw[got]))
					}
				}
				if (next != "") != (got < len(want)) {
					t.Fatalf("seed %d %q: cursor %v after %d of %d tools", seed, q, next != "", got, len(want))
				}
				if next == "" {
					break
				}
				cur = next
			}
		}
	}
	t.Logf("%d walks, %d pages, %d pages cut short by size", walks, pages, short)
	if short == 0 {
		t.Errorf("no page was cut short by size: the generator does not exercise PAGE-2")
	}
}

// SPEC PAGE-1, PAGE-2: the envelope is counted to the byte: a single-tool page whose
// response is exactly 65,536 bytes is served, and one byte more of id answers
// tool_schema_too_large (413). Discover's typed pages fit any id of MaxIDBytes.
func TestPageExactBudget(t *testing.T) {
	ctx := t.Context()
	cat := newCatalog(t, bigTool("giant_report", "The giant quarterly report.", 40_000))
	if raw, _ := cat.Tool("giant_report"); len(raw) < 50_000 {
		t.Fatalf("the giant tool is only %d bytes", len(raw))
	}
	d := newDiscoverer(cat, allGranted(t, cat), nil)
	resp, _ := d.HandleJSONRPC(ctx, alice, discoverMsg("1", "giant report", 16, ""))
	if decodePage(t, resp).err != "" || len(resp) > discovery.MaxResponseBytes {
		t.Fatalf("base response: %.100s (%d bytes)", resp, len(resp))
	}
	spare := discovery.MaxResponseBytes - len(resp)
	exact := `"` + strings.Repeat("x", spare-1) + `"` // 1 + spare bytes: the response is 65,536
	resp, _ = d.HandleJSONRPC(ctx, alice, discoverMsg(exact, "giant report", 16, ""))
	if pg := decodePage(t, resp); pg.err != "" || len(resp) != discovery.MaxResponseBytes || len(pg.tools) != 1 {
		t.Errorf("id filling the page exactly: %d bytes, error %q", len(resp), pg.err)
	}
	over := `"` + strings.Repeat("x", spare) + `"`
	resp, _ = d.HandleJSONRPC(ctx, alice, discoverMsg(over, "giant report", 16, ""))
	if pg := decodePage(t, resp); pg.err != discovery.CodeSchemaTooLarge || !bytes.Contains(resp, []byte(`"status":413`)) {
		t.Errorf("one byte over: %.100s, want tool_schema_too_large 413", resp)
	}

	// The same to the byte on a page that carries a cursor.
	d2 := newDiscoverer(newCatalog(t, sampleTools()...), allGranted(t, newCatalog(t, sampleTools()...)), nil)
	resp, _ = d2.HandleJSONRPC(ctx, alice, discoverMsg("1", "model", 1, ""))
	if pg := decodePage(t, resp); pg.err != "" || pg.cursor == "" || len(pg.tools) != 1 {
		t.Fatalf("base page with a cursor: %.200s", resp)
	}
	spare = discovery.MaxResponseBytes - len(resp)
	exact = `"` + strings.Repeat("x", spare-1) + `"`
	resp, _ = d2.HandleJSONRPC(ctx, alice, discoverMsg(exact, "model", 1, ""))
	if pg := decodePage(t, resp); pg.err != "" || len(resp) != discovery.MaxResponseBytes || pg.cursor == "" {
		t.Errorf("id filling a page with a cursor exactly: %d bytes, error %q", len(resp), pg.err)
	}
	over = `"` + strings.Repeat("x", spare) + `"`
	resp, _ = d2.HandleJSONRPC(ctx, alice, discoverMsg(over, "model", 1, ""))
	if pg := decodePage(t, resp); pg.err != discovery.CodeSchemaTooLarge || len(resp) > discovery.MaxResponseBytes {
		t.Errorf("one byte over on a page with a cursor: %d bytes, error %q, want tool_schema_too_large", len(resp), pg.err)
	}

	// Discover reserves MaxIDBytes: its page framed with such an id fits.
	res, err := d.Discover(ctx, alice, discovery.Request{Query: "giant report"})
	if err == nil {
		framed := fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s","result":%s}`, strings.Repeat("y", discovery.MaxIDBytes-2), res.AppendJSON(nil))
		if len(framed) > discovery.MaxResponseBytes {
			t.Errorf("Discover's page framed with a %d-byte id is %d bytes", discovery.MaxIDBytes, len(framed))
		}
	} else {
		wantCode(t, "Discover", err, discovery.CodeSchemaTooLarge)
	}
}

// SPEC PAGE-3: when the next tool in rank order cannot fit even alone, the answer is
// tool_schema_too_large (413): the tools ranked before it are served whole, the big
// one is never truncated or replaced, and the walk stops there.
func TestToolTooLarge(t *testing.T) {
	ctx := t.Context()
	tools := []json.RawMessage{bigTool("huge_invoice_export", "Export every invoice of the billing account.", 70_000)}
	for i := range 6 {
		tools = append(tools, toolDef(fmt.Sprintf("invoice_%d", i), "Get an invoice of the billing account, invoice number "+fmt.Sprint(i)+"."))
	}
	cat := newCatalog(t, tools...)
	granted := map[string]bool{}
	for _, n := range cat.Names() {
		granted[n] = true
	}
	d := newDiscoverer(cat, allGranted(t, cat), nil)
	q := "invoice billing account"
	want := oracle(t, cat, granted, q)
	pos := slices.Index(want, "huge_invoice_export")
	if pos < 0 {
		t.Fatalf("the big tool does not rank for %q: %v", q, want)
	}
	for _, limit := range []int{1, 2, 16} {
		var got []string
		cur := ""
		for page := 0; ; page++ {
			if page > len(want) {
				t.Fatalf("limit %d: %d pages and no end: %v", limit, page, got)
			}
			res, err := d.Discover(ctx, alice, discovery.Request{Query: q, Limit: limit, Cursor: cur})
			if err != nil {
				wantCode(t, fmt.Sprintf("limit %d after %d tools", limit, len(got)), err, discovery.CodeSchemaTooLarge)
				break
			}
			for _, raw := range res.Tools {
				if len(raw) > 60_000 {
					t.Fatalf("the big tool was served")
				}
			}
			got = append(got, toolNames(t, res.Tools)...)
			if res.NextCursor == "" || len(got) > len(want) {
				t.Fatalf("limit %d: the walk ended without reaching the big tool: %v", limit, got)
			}
			cur = res.NextCursor
		}
		if !slices.Equal(got, want[:pos]) {
			t.Errorf("limit %d: served %v before the 413, want %v", limit, got, want[:pos])
		}
	}
}

// SPEC PAGE-5: ListTools returns the entire authorised set, in name order, unbounded
// by the 64 KiB page.
func TestListToolsUnbounded(t *testing.T) {
	ctx := t.Context()
	r := rand.New(rand.NewPCG(5, 5))
	var tools []json.RawMessage
	for i := range 120 {
		tl, _, _ := genTool(r, i, 6000+r.IntN(1000))
		tools = append(tools, tl)
	}
	cat := newCatalog(t, tools...)
	var rows []grants.Row
	var want []string
	for i, n := range cat.Names() {
		if i%6 != 0 {
			rows = append(rows, allow("alice", n))
			want = append(want, n)
		}
	}
	d := newDiscoverer(cat, newStore(t, rows...), nil)
	l, err := d.ListTools(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, tl := range l.Tools {
		total += len(tl)
	}
	if got := toolNames(t, l.Tools); !slices.Equal(got, want) {
		t.Errorf("ListTools: %d tools, want %d in name order", len(got), len(want))
	}
	if total <= 4*discovery.MaxResponseBytes {
		t.Errorf("ListTools served only %d bytes: the test does not exceed a page", total)
	}
}

// SPEC DISC-5 (property, seeded): adding, changing or removing a tool the principal is
// not granted changes no byte of its discovery results. With the same Signer, clock,
// grant store and revision, every page, cursor included, is identical; when the change
// also adds a grant row for that tool (an unusable one), pages are identical but for
// the cursor's bytes (the observed rows are bound into it), and the cursor is present
// on the same pages.
func TestUngrantedToolChangesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { // the bubble's clock stands still: one issue time for all
		ctx := t.Context()
		for seed := range uint64(3) {
			r := rand.New(rand.NewPCG(seed, 0xd15c5))
			base := genCatalog(r, 120)
			// Ungranted tools full of the query words, to move any statistic they could.
			var extra []json.RawMessage
			for i := range 3 {
				words := slices.Repeat([]string{vocabulary[r.IntN(len(vocabulary))]}, 5)
				extra = append(extra, toolDef(fmt.Sprintf("ungranted_%d", i), strings.Join(words, " ")+" model dataset deployment search"))
			}
			baseTools := append(slices.Clone(base), extra...)
			baseCat := newCatalog(t, baseTools...)
			var rows []grants.Row
			for _, n := range baseCat.Names() {
				if !strings.HasPrefix(n, "ungranted_") && r.IntN(2) == 0 {
					rows = append(rows, allow("alice", n))
				}
			}
			store := newStore(t, rows...)
			withRow := newStore(t, append(slices.Clone(rows), deny("alice", "ungranted_new"), allow("*", "ungranted_0", "missing:scope"))...)
			signer := cursor.NewSigner()
			build := func(tools []json.RawMessage, s grants.Reader) *discovery.Discoverer {
				return newDiscoverer(newCatalog(t, tools...), s, func(o *discovery.Options) {
					o.Signer, o.RevisionSync = signer, true
				})
			}
			changed := slices.Clone(baseTools)
			changed[len(changed)-1] = toolDef("ungranted_2", "model model model search search dataset")
			added := append(slices.Clone(baseTools), toolDef("ungranted_new", "deployment model search registry dataset dataset"))
			removed := slices.Clone(baseTools[:len(baseTools)-1])
			ref := build(baseTools, store)
			variants := map[string]*discovery.Discoverer{
				"changed": build(changed, store),
				"added":   build(added, store),
				"removed": build(removed, store),
			}
			refRows := build(baseTools, withRow)
			rowVariants := map[string]*discovery.Discoverer{"added with a deny row": build(added, withRow)}
			queries := []string{"model", "dataset search", "deployment model registry"}
			for range 3 {
				queries = append(queries, genQuery(r))
			}
			for _, q := range queries {
				for _, limit := range []int{2, 16} {
					want := walkRaw(t, ctx, ref, q, limit)
					for name, v := range variants {
						if got := walkRaw(t, ctx, v, q, limit); !slices.Equal(got, want) {
							t.Errorf("seed %d, %s ungranted tool: %q limit %d: pages differ", seed, name, q, limit)
						}
					}
					wantNoCur := stripCursors(walkRaw(t, ctx, refRows, q, limit))
					if !slices.Equal(stripCursors(want), wantNoCur) {
						t.Errorf("seed %d: an unusable row changed %q's pages", seed, q)
					}
					for name, v := range rowVariants {
						if got := stripCursors(walkRaw(t, ctx, v, q, limit)); !slices.Equal(got, wantNoCur) {
							t.Errorf("seed %d, %s: %q limit %d: pages differ beyond the cursor", seed, name, q, limit)
						}
					}
				}
			}
		}
	})
}

// walkRaw returns the encoded pages of a whole walk.
func walkRaw(t testing.TB, ctx context.Context, d *discovery.Discoverer, q string, limit int) []string {
	t.Helper()
	var out []string
	cur := ""
	for {
		res, err := d.Discover(ctx, alice, discovery.Request{Query: q, Limit: limit, Cursor: cur})
		if err != nil {
			t.Fatalf("walk %q: %v", q, err)
		}
		out = append(out, string(res.AppendJSON(nil)))
		if res.NextCursor == "" || len(out) > 100 {
			return out
		}
		cur = res.NextCursor
	}
}

// stripCursors replaces each cursor's text by a marker: its presence stays visible.
func stripCursors(pages []string) []string {
	out := make([]string, len(pages))
	for i, p := range pages {
		if j := strings.Index(p, `"nextCursor":"`); j >= 0 {
			k := j + len(`"nextCursor":"`)
			end := strings.IndexByte(p[k:], '"')
			p = p[:k] + "CURSOR" + p[k+end:]
		}
		out[i] = p
	}
	return out
}
