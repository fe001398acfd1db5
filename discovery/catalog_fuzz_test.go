package discovery

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/internal/tooldef"
	"github.com/deferredtools/deferredtools/schemaguard"
)

// refTool is what a plain reader over map[string]json.RawMessage (exact names, as Go
// maps match) finds in a tool definition: the reference tooldef.Read must agree with.
type refTool struct {
	fields    tooldef.Fields
	malformed bool // no object, or name, title or description neither string nor null
	twins     bool // tool, annotations or _meta hold names differing only by case
}

func refRead(def []byte) refTool {
	var r refTool
	var top map[string]json.RawMessage
	if json.Unmarshal(def, &top) != nil || top == nil {
		return refTool{malformed: true}
	}
	str := func(raw json.RawMessage) string {
		var v any
		if raw == nil || json.Unmarshal(raw, &v) != nil {
			return ""
		}
		switch v := v.(type) {
		case string:
			return v
		case nil:
		default:
			r.malformed = true
		}
		return ""
	}
	r.fields.Name = str(top["name"])
	r.fields.Title = str(top["title"])
	r.fields.Description = str(top["description"])
	r.fields.InputSchema = top["inputSchema"]
	r.twins = refTwins(top)
	var ann, meta map[string]json.RawMessage
	if raw := top["annotations"]; len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &ann) == nil {
		var title any
		if json.Unmarshal(ann["title"], &title) == nil {
			r.fields.AnnTitle, _ = title.(string)
		}
		r.fields.ReadOnly = string(ann["readOnlyHint"]) == "true"
		r.twins = r.twins || refTwins(ann)
	}
	if raw := top["_meta"]; len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &meta) == nil {
		r.fields.Eager = meta[tooldef.MetaEagerKey]
		r.twins = r.twins || refTwins(meta)
	}
	return r
}

// refTwins compares every pair of decoded names with strings.EqualFold.
func refTwins(m map[string]json.RawMessage) bool {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	for i, a := range names {
		for _, b := range names[i+1:] {
			if strings.EqualFold(a, b) {
				return true
			}
		}
	}
	return false
}

// FuzzReadTool checks that for any tool definition NewCatalog reads exactly the members
// named name, title, description, inputSchema, annotations.title,
// annotations.readOnlyHint and _meta["deferredtools/eager"], as a map-based reference
// reader finds them; refuses a tool whose object, annotations or _meta hold names
// differing only by case; and accepts every tool the reference finds valid (SPEC
// CALL-2, VIS-1, CONTRACT-1).
func FuzzReadTool(f *testing.F) {
	for _, s := range []string{
		`{"name":"t","inputSchema":{"type":"object"}}`,
		`{"name":"t","inputSchema":{"type":"object"},"inputschema":{}}`,
		`{"name":"t","InputSchema":{"type":"object"}}`,
		`{"name":"t","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"readonlyhint":true}}`,
		`{"name":"t","inputSchema":{"type":"object"},"annotations":{"ReadOnlyHint":true,"title":"x"}}`,
		`{"name":"t","inputSchema":{"type":"object"},"annotations":{"readonlyhint":true,"Title":"x"}}`,
		`{"name":"t","inputSchema":{"type":"object"},"_meta":{"deferredtools/eager":true}}`,
		`{"name":"t","inputSchema":{"type":"object"},"_Meta":{"deferredtools/eager":false}}`,
		`{"name":"t","inputSchema":{"type":"object"},"input\u017fchema":{}}`,
		`{"name":"t","inputSchema":{"type":"object"},"annotations":{"\u212a":1,"k":2}}`,
		`{"name":"t","na\u006de":"u","inputSchema":{"type":"object","properties":{"id":{},"ID":{}}}}`,
		`{"name":null,"title":7,"inputSchema":{}}`,
		`{"name":"t\"q","description":"a\u0000b","inputSchema":{}}`,
		`[{"name":"t"}]`,
		`{"name":"t","inputSchema":{},"_meta":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"\u212a":18}}`,
		`{"name":"t","inputSchema":{},"_meta":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18}}`,
		`{"name":"t","inputSchema":{},"_meta":{"a\"":1,"A\"":2,"b":3,"c":4,"d":5,"e":6,"f":7,"g":8,"h":9,"i":10,"j":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		canon, _, err := schemaguard.Canonicalize(nil, []byte(raw))
		if err != nil {
			return
		}
		ref := refRead(canon)
		got, reason := tooldef.Read(canon)
		want := ""
		switch {
		case ref.malformed:
			want = "malformed"
		case ref.twins:
			want = "member names differing only by case" // the Reason CatalogError documents
		}
		if reason != want {
			t.Fatalf("tooldef.Read(%s) reason %q, want %q", canon, reason, want)
		}
		if want == "" && !sameFields(got, ref.fields) {
			t.Fatalf("tooldef.Read(%s) = %+v, want the exactly named members %+v", canon, got, ref.fields)
		}
		cat, err := NewCatalog([]json.RawMessage{json.RawMessage(raw)}, nil)
		var ce *CatalogError
		switch {
		case want != "":
		case !validToolName(ref.fields.Name):
			want = "name"
		case len(ref.fields.InputSchema) == 0 || ref.fields.InputSchema[0] != '{':
			want = "inputSchema"
		}
		if want != "" {
			if !errors.As(err, &ce) || ce.Reason != want || ce.Index != 0 {
				t.Fatalf("NewCatalog(%s) = %v, want tool 0 refused: %s", raw, err, want)
			}
			if ce.Name != "" && ce.Name != ref.fields.Name {
				t.Fatalf("NewCatalog(%s) names the tool %q, want its exact name %q", raw, ce.Name, ref.fields.Name)
			}
			return
		}
		if errors.As(err, &ce) && strings.HasPrefix(ce.Reason, "limit") {
			return
		}
		if err != nil {
			t.Fatalf("NewCatalog(%s) = %v, want accepted", raw, err)
		}
		tl := cat.tools[0]
		if tl.name != ref.fields.Name || tl.readOnly != ref.fields.ReadOnly || !bytes.Equal(tl.canonical, canon) {
			t.Fatalf("NewCatalog(%s) read name %q, readOnly %v; want %q, %v", raw, tl.name, tl.readOnly, ref.fields.Name, ref.fields.ReadOnly)
		}
	})
}

func sameFields(a, b tooldef.Fields) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description &&
		bytes.Equal(a.InputSchema, b.InputSchema) && a.AnnTitle == b.AnnTitle &&
		a.ReadOnly == b.ReadOnly && bytes.Equal(a.Eager, b.Eager)
}
