package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/validate"
)

// visCountCompiler counts the argument validations of the validators it compiles, to
// prove a refused call never reaches its arguments.
type visCountCompiler struct {
	inner validate.Compiler
	calls *atomic.Int64
}

func (c visCountCompiler) Compile(schema []byte) (validate.Validator, error) {
	v, err := c.inner.Compile(schema)
	if v == nil {
		return nil, err
	}
	return visCountValidator{v, c.calls}, err
}

type visCountValidator struct {
	inner validate.Validator
	calls *atomic.Int64
}

func (v visCountValidator) Validate(args []byte) error {
	v.calls.Add(1)
	return v.inner.Validate(args)
}

// visTools is a small catalog over three toolsets (the prefix before "_"), with
// readOnlyHint true, false and absent.
var visTools = []string{
	`{"name":"repo_read","description":"Read a file of a repository.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
	`{"name":"repo_write","description":"Write a file of a repository.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false}}`,
	`{"name":"issues_list","description":"List the issues of a repository.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"destructiveHint":false}}`,
	`{"name":"issues_close","description":"Close an issue of a repository.","inputSchema":{"type":"object"}}`,
	`{"name":"admin_audit","description":"Read the audit log of the organisation.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
	`{"name":"admin_delete","description":"Delete the organisation.","inputSchema":{"type":"object"},"annotations":{"destructiveHint":true}}`,
}

func prefixToolset(name string) string {
	i := strings.IndexAny(name, "_-")
	if i < 0 {
		return name
	}
	return name[:i]
}

// visFixture is an enabled Discoverer over raws, every tool granted through a row of
// the compatibility principal, narrowed by vis.
func visFixture(t testing.TB, raws []json.RawMessage, vis discovery.Visibility, calls *atomic.Int64) (*discovery.Discoverer, *discovery.Catalog) {
	t.Helper()
	opts := &discovery.CatalogOptions{Toolset: prefixToolset}
	if calls != nil {
		opts.Compiler = visCountCompiler{validate.NewCompiler(nil), calls}
	}
	cat, err := discovery.NewCatalog(raws, opts)
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	store := grants.NewMemory()
	for _, name := range cat.Names() {
		if _, err := store.Put(context.Background(), grants.Row{Principal: grants.AnyPrincipal, Tool: name, Effect: grants.Allow}); err != nil {
			t.Fatalf("Put: %v", err)
		}
	}
	return discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store, Visibility: vis}), cat
}

func rawTools(defs []string) []json.RawMessage {
	raws := make([]json.RawMessage, len(defs))
	for i, d := range defs {
		raws[i] = json.RawMessage(d)
	}
	return raws
}

// paths reports, for one tool, what each path says: listed by ListTools, found by
// Discover with its own name as the query, and a call not refused with
// tool_not_granted.
func paths(t testing.TB, d *discovery.Discoverer, p grants.Principal, listed map[string]bool, name string) (list, disc, call bool) {
	t.Helper()
	err := d.AuthorizeCall(context.Background(), p, discovery.Call{Tool: name, Arguments: json.RawMessage(`{}`)})
	call = !errors.Is(err, discovery.CodeToolNotGranted)
	return listed[name], discoverable(t, d, p, name, name), call
}

func listedNames(t testing.TB, d *discovery.Discoverer, p grants.Principal) map[string]bool {
	t.Helper()
	res, err := d.ListTools(context.Background(), p)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	m := make(map[string]bool, len(res.Tools))
	for _, def := range res.Tools {
		m[toolName(t, def)] = true
	}
	return m
}

// SPEC VIS-1: exclusions by name, read-only mode (readOnlyHint true only; read-only wins
// over any other selection) and toolset selection narrow tools/list, discover and
// tools/call alike.
func TestVisibilityNarrowsEveryPath(t *testing.T) {
	all := []string{"admin_audit", "admin_delete", "issues_close", "issues_list", "repo_read", "repo_write"}
	tests := []struct {
		name string
		vis  discovery.Visibility
		want []string
	}{
		{"zero value withholds nothing", discovery.Visibility{}, all},
		{"exclude by exact name", discovery.Visibility{Exclude: []string{"admin_delete", "repo", "nope"}},
			[]string{"admin_audit", "issues_close", "issues_list", "repo_read", "repo_write"}},
		{"read-only: readOnlyHint true only (false and absent withheld)", discovery.Visibility{ReadOnly: true},
			[]string{"admin_audit", "issues_list", "repo_read"}},
		{"toolsets", discovery.Visibility{Toolsets: []string{"repo", "issues"}},
			[]string{"issues_close", "issues_list", "repo_read", "repo_write"}},
		{"unknown toolset serves nothing", discovery.Visibility{Toolsets: []string{"wiki"}}, nil},
		{"read-only wins over the toolset selection", discovery.Visibility{ReadOnly: true, Toolsets: []string{"repo", "admin"}},
			[]string{"admin_audit", "repo_read"}},
		{"read-only wins over an exclusion list that keeps writers", discovery.Visibility{ReadOnly: true, Exclude: []string{"repo_read"}},
			[]string{"admin_audit", "issues_list"}},
		{"all three", discovery.Visibility{ReadOnly: true, Toolsets: []string{"issues", "admin"}, Exclude: []string{"admin_audit"}},
			[]string{"issues_list"}},
	}
	p := grants.Principal{ID: "alice"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := visFixture(t, rawTools(visTools), tt.vis, nil)
			listed := listedNames(t, d, p)
			for _, name := range all {
				want := slices.Contains(tt.want, name)
				list, disc, call := paths(t, d, p, listed, name)
				if list != want || disc != want || call != want {
					t.Errorf("%s: listed %v, discoverable %v, callable %v; want all %v", name, list, disc, call, want)
				}
			}
		})
	}
}

// SPEC VIS-2, CALL-1: a call to a withheld tool is refused with one reason,
// tool_not_granted (403), before its arguments are decoded: arguments that are not
// even JSON get the same refusal, and no validator runs.
func TestVisibilityWithheldCallRefusedBeforeArguments(t *testing.T) {
	var calls atomic.Int64
	vis := discovery.Visibility{Exclude: []string{"repo_read"}, ReadOnly: true, Toolsets: []string{"repo", "issues"}}
	d, _ := visFixture(t, rawTools(visTools), vis, &calls)
	p := grants.Principal{ID: "alice"}
	ctx := context.Background()
	withheld := map[string]string{
		"repo_read":    "excluded",
		"repo_write":   "not read-only",
		"issues_close": "readOnlyHint absent",
		"admin_audit":  "outside the toolsets",
		"no_such_tool": "unknown",
	}
	args := []string{`{"a":`, `[1,2`, "\xff\xfe", `{"a":1,"a":2}`, `{}`, ``, `null`}
	for name, why := range withheld {
		for _, a := range args {
			err := d.AuthorizeCall(ctx, p, discovery.Call{Tool: name, Arguments: json.RawMessage(a)})
			var e *discovery.Error
			if !errors.As(err, &e) || e.Code != discovery.CodeToolNotGranted || e.Code.Status() != 403 || e.Code.JSONRPCCode() != -32000 {
				t.Errorf("AuthorizeCall(%s, %s, %q) = %v, want tool_not_granted 403", name, why, a, err)
			}
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("withheld calls ran %d validations, want 0", n)
	}
	// The visible tool decodes its arguments: bad JSON is invalid_arguments there, so
	// the refusals above did not come from the arguments.
	err := d.AuthorizeCall(ctx, p, discovery.Call{Tool: "issues_list", Arguments: json.RawMessage(`{"a":`)})
	var e *discovery.Error
	if !errors.As(err, &e) || e.Code != discovery.CodeInvalidArguments {
		t.Fatalf("AuthorizeCall(visible, bad JSON) = %v, want invalid_arguments", err)
	}
	if err := d.AuthorizeCall(ctx, p, discovery.Call{Tool: "issues_list", Arguments: json.RawMessage(`{}`)}); err != nil {
		t.Fatalf("AuthorizeCall(visible, {}) = %v, want nil", err)
	}
	if n := calls.Load(); n != 2 {
		t.Fatalf("visible calls ran %d validations, want 2", n)
	}
}

// rawDir is the real raw catalogs (see /work/shared/data/PROVENANCE.md).
const rawDir = "../../shared/data/catalogs/raw"

// SPEC VIS-1, VIS-2: for every tool of the real raw catalogs, under each narrowing
// mode, the three paths agree: listed by tools/list ⇔ discoverable by a query of its own
// name ⇔ a call not refused with tool_not_granted; and they agree with the mode's
// definition, read independently from the raw tool objects.
func TestVisibilityRealCatalogs(t *testing.T) {
	if _, err := os.Stat(rawDir); err != nil {
		t.Skipf("real catalogs absent (%s): %v", rawDir, err)
	}
	files, err := filepath.Glob(filepath.Join(rawDir, "*.raw-tools.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s exists but holds no *.raw-tools.json (err %v)", rawDir, err)
	}
	p := grants.Principal{ID: "alice", Scopes: []string{"repo"}}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".raw-tools.json"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var raws []json.RawMessage
			if err := json.Unmarshal(data, &raws); err != nil {
				t.Fatal(err)
			}
			if len(raws) == 0 {
				t.Fatal("no tools")
			}
			type info struct {
				name     string
				readOnly bool
			}
			tools := make([]info, len(raws))
			count := map[string]int{}
			for i, raw := range raws {
				var f struct {
					Name        string         `json:"name"`
					Annotations map[string]any `json:"annotations"`
				}
				if err := json.Unmarshal(raw, &f); err != nil {
					t.Fatal(err)
				}
				tools[i] = info{f.Name, f.Annotations["readOnlyHint"] == true}
				count[prefixToolset(f.Name)]++
			}
			// Two toolsets: the largest one and the alphabetically first other one.
			var sets []string
			for s := range count {
				sets = append(sets, s)
			}
			slices.SortFunc(sets, func(a, b string) int {
				if count[a] != count[b] {
					return count[b] - count[a]
				}
				return strings.Compare(a, b)
			})
			if len(sets) > 2 {
				sets = sets[:2]
			}
			var exclude []string
			for i, tl := range tools {
				if i%3 == 0 {
					exclude = append(exclude, tl.name)
				}
			}
			modes := []struct {
				name string
				vis  discovery.Visibility
			}{
				{"all", discovery.Visibility{}},
				{"exclude", discovery.Visibility{Exclude: exclude}},
				{"read-only", discovery.Visibility{ReadOnly: true}},
				{"toolsets", discovery.Visibility{Toolsets: sets}},
				{"read-only+toolsets+exclude", discovery.Visibility{ReadOnly: true, Toolsets: sets, Exclude: exclude}},
			}
			for _, m := range modes {
				d, _ := visFixture(t, raws, m.vis, nil)
				listed := listedNames(t, d, p)
				served := 0
				for _, tl := range tools {
					want := (!m.vis.ReadOnly || tl.readOnly) && !slices.Contains(m.vis.Exclude, tl.name) &&
						(len(m.vis.Toolsets) == 0 || slices.Contains(m.vis.Toolsets, prefixToolset(tl.name)))
					list, disc, call := paths(t, d, p, listed, tl.name)
					if list != want || disc != want || call != want {
						t.Errorf("%s: %s: listed %v, discoverable %v, callable %v; want all %v", m.name, tl.name, list, disc, call, want)
					}
					if want {
						served++
					}
				}
				if len(listed) != served {
					t.Errorf("%s: tools/list has %d tools, want %d", m.name, len(listed), served)
				}
				if m.name == "all" && served != len(tools) {
					t.Errorf("all: %d of %d tools served", served, len(tools))
				}
			}
		})
	}
}
