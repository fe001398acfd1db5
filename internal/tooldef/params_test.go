package tooldef

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/deferredtools/deferredtools/internal/catalogtest"
	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// paramSeeds are schemas whose parameter text exercises each rule of rank.ParamText.
var paramSeeds = []string{
	`{}`, `[]`, `"x"`, `{"properties":null}`, `{"properties":{"":{"description":""}}}`,
	`{"title":"T","description":"tool","properties":{"state":{"description":"Filter by state","enum":["open","closed",3]},"owner":{"title":"Owner","type":"string"}}}`,
	`{"properties":{"review":{"properties":{"event":{"const":"APPROVE"}}},"files":{"items":{"properties":{"path":{"description":"file path"}}}},"target":{"anyOf":[{"properties":{"url":{}}},{"properties":{"ref":{}}}]}}}`,
	`{"properties":{"labels":{"additionalProperties":{"properties":{"color":{"description":"hex colour"}}}}}}`,
	`{"$defs":{"rich":{"properties":{"annotations":{}}}},"properties":{"kinds":{"items":{"enum":["a","b"]}}}}`,
	`{"properties":{"a\"b":{"description":"q\"uote\\back\nline"},"a#":{"title":"\u0001"}}}`,
	`{"properties":{"\ue000":{},"\ud83d\ude00":{},"z":{}}}`, // UTF-16 and byte order differ
	`{"oneOf":[{"properties":{"x":{}}},true,[]],"allOf":{"properties":{"y":{}}},"items":[{"properties":{"z":{}}}]}`,
	`{ "properties" : { "b" : { "enum" : [ "x" , "" , "y" ] } , "a" : { "const" : 1 } } }`,
	`{"properties":{"p":` + deepSchema(30) + `}}`,
}

func deepSchema(n int) string {
	if n == 0 {
		return `{"description":"bottom"}`
	}
	return `{"properties":{"p":` + deepSchema(n-1) + `},"anyOf":[` + deepSchema(n/4) + `]}`
}

// checkParamText fails t when ParamText of src's canonical form differs from
// rank.ParamText of src; src that has no canonical form is skipped.
func checkParamText(t *testing.T, src []byte) {
	t.Helper()
	canon, _, err := schemaguard.Canonicalize(nil, src)
	if err != nil {
		return
	}
	if got, want := ParamText(canon), rank.ParamText(src); got != want {
		t.Fatalf("ParamText(canonical %s) = %q, rank.ParamText = %q", canon, got, want)
	}
}

// TestParamTextMatchesRank checks the one-pass reader gives rank.ParamText's text on
// the seeds and on every inputSchema of the real catalogs.
func TestParamTextMatchesRank(t *testing.T) {
	for _, s := range paramSeeds {
		checkParamText(t, []byte(s))
	}
	for _, tool := range catalogtest.RealTools(t) {
		var def struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(tool, &def); err != nil {
			t.Fatal(err)
		}
		checkParamText(t, def.InputSchema)
	}
}

// FuzzParamText checks ParamText of any JSON text's canonical form equals
// rank.ParamText of the text, the reference it replaces on the catalog build path.
func FuzzParamText(f *testing.F) {
	for _, s := range paramSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkParamText(t, src) })
}

// BenchmarkParamText compares reading parameter text from a canonical schema of about
// 5 KB (40 properties) with ParamText and with rank.ParamText (encoding/json into maps).
func BenchmarkParamText(b *testing.B) {
	var props []string
	for i := range 40 {
		props = append(props, fmt.Sprintf(`"param_%02d":{"description":"the %d-th parameter of the tool, a filter on the listed items","type":"string","enum":["open","closed","all"]}`, i, i))
	}
	src := []byte(`{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":["param_01"]}`)
	canon, _, err := schemaguard.Canonicalize(nil, src)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("tooldef", func(b *testing.B) {
		b.SetBytes(int64(len(canon)))
		b.ReportAllocs()
		for b.Loop() {
			ParamText(canon)
		}
	})
	b.Run("rank", func(b *testing.B) {
		b.SetBytes(int64(len(canon)))
		b.ReportAllocs()
		for b.Loop() {
			rank.ParamText(canon)
		}
	})
}

// BenchmarkReadParams reads a canonical tool definition of about 3 KB (16 properties of
// the shapes the discovery benchmarks generate) with ReadParamSpans, as a catalog build
// does once per tool (the sub-benchmark's name is the one docs/scale.md quotes).
func BenchmarkReadParams(b *testing.B) {
	var props []string
	for i := range 16 {
		var extra string
		switch i % 4 {
		case 0:
			extra = `"enum":["open","closed","all"],"type":"string"`
		case 1:
			extra = `"maximum":9000,"minimum":0,"type":"integer"`
		case 2:
			extra = `"items":{"maxLength":64,"type":"string"},"maxItems":50,"type":"array"`
		default:
			extra = `"maxLength":256,"minLength":1,"type":"string"`
		}
		props = append(props, fmt.Sprintf(`"param_%02d":{"description":"the %d-th parameter of the tool, a filter on the listed items",%s}`, i, i, extra))
	}
	src := []byte(`{"annotations":{"readOnlyHint":true,"title":"LIST"},"description":"List the items of a project, filtered by state, owner and labels, newest first.",` +
		`"inputSchema":{"additionalProperties":false,"properties":{` + strings.Join(props, ",") + `},"required":["param_01"],"type":"object"},"name":"project_items_list"}`)
	def, _, err := schemaguard.Canonicalize(nil, src)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("spans", func(b *testing.B) {
		var spans []uint32
		b.SetBytes(int64(len(def)))
		b.ReportAllocs()
		for b.Loop() {
			_, spans, _, _ = ReadParamSpans(def, spans[:0])
		}
	})
}

// checkReadParams fails t when ReadParamSpans of def's canonical form differs from Read
// of it and ParamText of the inputSchema Read finds; def that has no canonical form is
// skipped.
func checkReadParams(t *testing.T, def []byte) {
	t.Helper()
	canon, _, err := schemaguard.Canonicalize(nil, def)
	if err != nil {
		return
	}
	wantF, wantReason := Read(canon)
	checkReadParamSpans(t, canon, wantF, wantReason, ParamText(wantF.InputSchema))
}

// checkReadParamSpans fails t when ReadParamSpans of canon reads other members than
// Read (wantF, wantReason), or its spans, joined by spaces, are not the parameter text
// want while it says they are (plain), or it says so when a piece holds an escape.
func checkReadParamSpans(t *testing.T, canon []byte, wantF Fields, wantReason, want string) {
	t.Helper()
	pre := []uint32{7, 9} // kept ahead of the spans appended
	f, spans, plain, reason := ReadParamSpans(canon, pre)
	if reason != wantReason || fmt.Sprint(f) != fmt.Sprint(wantF) {
		t.Fatalf("ReadParamSpans(%s) = %+v, %q; Read = %+v, %q", canon, f, reason, wantF, wantReason)
	}
	if len(spans) < 2 || spans[0] != 7 || spans[1] != 9 || len(spans)%2 != 0 {
		t.Fatalf("ReadParamSpans(%s) spans %v: not appended to [7 9] in pairs", canon, spans)
	}
	if reason != "" {
		return
	}
	var pieces []string
	escaped := false
	for k := 2; k < len(spans); k += 2 {
		a, b := spans[k], spans[k+1]
		if a >= b || int(b) > len(canon) {
			t.Fatalf("ReadParamSpans(%s) span [%d, %d) empty or out of the text", canon, a, b)
		}
		pieces = append(pieces, string(canon[a:b]))
		escaped = escaped || strings.Contains(pieces[len(pieces)-1], `\`)
	}
	if plain == escaped {
		t.Fatalf("ReadParamSpans(%s) plain %v with pieces %q", canon, plain, pieces)
	}
	if got := strings.Join(pieces, " "); plain && got != want {
		t.Fatalf("ReadParamSpans(%s) text %q, want %q", canon, got, want)
	}
}

// paramDefs are tool definitions around each of paramSeeds, and a few whose other
// members come after the schema or are refused.
func paramDefs() []string {
	defs := []string{
		`{}`, `[]`, `{"name":"t","inputSchema":{"properties":{"a":{}}},"title":3}`,
		`{"name":"t","inputSchema":{"properties":{"a":{}}},"Name":"u"}`, `{"InputSchema":{},"inputSchema":{},"name":"t"}`,
		`{"inputSchema":{"properties":{"b":{"description":"x"}}},"name":"t","annotations":{"title":"T","readOnlyHint":true}}`,
	}
	for _, s := range paramSeeds {
		defs = append(defs, `{"name":"t","description":"d","inputSchema":`+s+`,"_meta":{}}`)
	}
	return defs
}

// TestReadParams checks ReadParamSpans reads what Read and ParamText read, on the seeds
// and on every tool of the real catalogs.
func TestReadParams(t *testing.T) {
	for _, s := range paramDefs() {
		checkReadParams(t, []byte(s))
	}
	for _, tool := range catalogtest.RealTools(t) {
		checkReadParams(t, tool)
	}
}

// FuzzReadParams checks ReadParamSpans reads what Read and ParamText read from any JSON
// text's canonical form.
func FuzzReadParams(f *testing.F) {
	for _, s := range paramDefs() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, def []byte) { checkReadParams(t, def) })
}

// TestParamSpansRankAlike checks a rank index over docs whose parameter text is
// ReadParamSpans' spans (rank.Pieces of the canonical form) ranks and explains every
// query exactly as one over the same text as a string, on every tool of the real
// catalogs and the seeds: the catalog build hands rank the spans.
func TestParamSpansRankAlike(t *testing.T) {
	var defs [][]byte
	for _, s := range paramDefs() {
		defs = append(defs, []byte(s))
	}
	defs = append(defs, []byte(`{"name":"n","inputSchema":{"properties":{"café_id":{"description":"Ｆｕｌｌ width, cafe\u0301 and 東京都 names"}}}}`))
	if dir := catalogtest.DataDir(); dir != "" {
		for _, tool := range catalogtest.RealTools(t) {
			defs = append(defs, tool)
		}
	}
	var withPieces, withText []rank.Doc
	var words []string
	plainDocs := 0
	for i, def := range defs {
		canon, _, err := schemaguard.Canonicalize(nil, def)
		if err != nil {
			continue
		}
		f, spans, plain, reason := ReadParamSpans(canon, nil)
		if reason != "" {
			continue
		}
		text := ParamText(f.InputSchema)
		doc := rank.Doc{Name: fmt.Sprintf("tool_%d", i), Description: f.Description, Params: text}
		withText = append(withText, doc)
		if plain {
			plainDocs++
			doc.Params = "" // not read: the pieces stand for it
			doc.ParamPieces = &rank.Pieces{Src: string(canon), Spans: spans}
		}
		withPieces = append(withPieces, doc)
		if w := strings.Fields(text); len(w) > 0 {
			words = append(words, w[i%len(w)], w[len(w)-1])
		}
	}
	if plainDocs < len(withText)/2 {
		t.Fatalf("only %d of %d docs have plain spans", plainDocs, len(withText))
	}
	a, b := rank.NewIndex(withPieces), rank.NewIndex(withText)
	all := rank.NewSet(len(withText))
	for i := range withText {
		all.Add(i)
	}
	for q := 0; q+1 < len(words); q += 2 {
		query := words[q] + " " + words[q+1]
		got, want := a.Search(nil, query, all, 0), b.Search(nil, query, all, 0)
		if !slices.Equal(got, want) {
			t.Fatalf("query %q: pieces rank %v, text %v", query, got, want)
		}
		if len(got) > 0 {
			d := got[0].Doc
			ge, we := a.Explain(query, all, d, withPieces[d]), b.Explain(query, all, d, withText[d])
			if fmt.Sprint(ge) != fmt.Sprint(we) {
				t.Fatalf("query %q, doc %d: pieces explain %v, text %v", query, d, ge, we)
			}
		}
	}
}

// TestReadParamSpansShares checks ReadParamSpans' title, description and annotation
// title share the definition's bytes when they hold no escape, and its name never does
// (a catalog keeps names, not these).
func TestReadParamSpansShares(t *testing.T) {
	def := []byte(`{"annotations":{"title":"Ann"},"description":"Lists items","inputSchema":{"properties":{"a":{}}},"name":"list_items","title":"Items \"all\""}`)
	f, _, _, reason := ReadParamSpans(def, nil)
	if reason != "" {
		t.Fatal(reason)
	}
	inDef := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(&def[0]))
		return p >= start && p < start+uintptr(len(def))
	}
	if f.Description != "Lists items" || !inDef(f.Description) || f.AnnTitle != "Ann" || !inDef(f.AnnTitle) {
		t.Fatalf("description %q, annotations.title %q: not shared with the definition", f.Description, f.AnnTitle)
	}
	if f.Title != `Items "all"` || inDef(f.Title) {
		t.Fatalf("title %q: escaped, must be decoded into a copy", f.Title)
	}
	if f.Name != "list_items" || inDef(f.Name) {
		t.Fatalf("name %q shares the definition's bytes", f.Name)
	}
	if g, _ := Read(def); inDef(g.Description) {
		t.Fatal("Read's description shares the definition's bytes")
	}
}

// TestParamTextCut checks ParamText, whose walker reads canonical text by its layout
// alone, never panics on text that is not: every prefix of canonical schemas
// (unterminated strings, objects and arrays) and the seeds as written, with their
// whitespace.
func TestParamTextCut(t *testing.T) {
	for _, s := range paramSeeds {
		canon, _, err := schemaguard.Canonicalize(nil, []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		for _, schema := range [][]byte{canon, []byte(s)} {
			step := len(schema)/400 + 1 // the deep seed's prefixes sampled, not all
			for n := 0; n <= len(schema); n += step {
				ParamText(slices.Clip(schema[:n]))
			}
		}
	}
}
