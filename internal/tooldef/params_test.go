package tooldef

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

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
	for _, tool := range realTools(t) {
		var def struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(tool, &def); err != nil {
			t.Fatal(err)
		}
		checkParamText(t, def.InputSchema)
	}
}

// realTools returns every tool of the real catalogs (catalogtest.ReadCatalogs), or skips
// t when they are absent.
func realTools(t *testing.T) []json.RawMessage {
	dir := catalogtest.DataDir()
	if dir == "" {
		t.Skip("real catalogs absent (../shared/data/catalogs beside the module)")
	}
	cats, err := catalogtest.ReadCatalogs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Concat(cats...)
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
// the shapes the discovery benchmarks generate), as a catalog build does once per tool.
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
	var params []byte
	b.SetBytes(int64(len(def)))
	b.ReportAllocs()
	for b.Loop() {
		_, params, _ = ReadParams(def, params[:0])
	}
}

// checkReadParams fails t when ReadParams of def's canonical form differs from Read of
// it and ParamText of the inputSchema Read finds, appended after a prefix and a space;
// def that has no canonical form is skipped.
func checkReadParams(t *testing.T, def []byte) {
	t.Helper()
	canon, _, err := schemaguard.Canonicalize(nil, def)
	if err != nil {
		return
	}
	wantF, wantReason := Read(canon)
	want := "prefix"
	if text := ParamText(wantF.InputSchema); wantReason == "" && text != "" {
		want += " " + text
	}
	f, params, reason := ReadParams(canon, []byte("prefix"))
	if reason != wantReason || fmt.Sprint(f) != fmt.Sprint(wantF) {
		t.Fatalf("ReadParams(%s) = %+v, %q; Read = %+v, %q", canon, f, reason, wantF, wantReason)
	}
	if reason == "" && string(params) != want {
		t.Fatalf("ReadParams(%s) text %q, want %q", canon, params, want)
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

// TestReadParams checks ReadParams reads what Read and ParamText read, on the seeds and
// on every tool of the real catalogs.
func TestReadParams(t *testing.T) {
	for _, s := range paramDefs() {
		checkReadParams(t, []byte(s))
	}
	for _, tool := range realTools(t) {
		checkReadParams(t, tool)
	}
}

// FuzzReadParams checks ReadParams reads what Read and ParamText read from any JSON
// text's canonical form.
func FuzzReadParams(f *testing.F) {
	for _, s := range paramDefs() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, def []byte) { checkReadParams(t, def) })
}
