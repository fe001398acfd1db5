package rankeval

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/deferredtools/deferredtools/rank"
)

func TestScore(t *testing.T) {
	l2 := func(i float64) float64 { return 1 / math.Log2(i+1) } // gain at 1-based rank i
	tests := []struct {
		got, relevant []string
		want          Metrics
	}{
		{[]string{"a", "b"}, []string{"a"}, Metrics{1, 1, 1, 1, 1}},
		{[]string{"x", "a"}, []string{"a"}, Metrics{0, 1, 1, 0.5, l2(2)}},
		{[]string{"x", "y", "z", "w", "v", "a"}, []string{"a"}, Metrics{0, 0, 1, 1.0 / 6, l2(6)}},
		{[]string{"x"}, []string{"a"}, Metrics{}},
		{nil, []string{"a"}, Metrics{}},
		{[]string{"b", "x", "a"}, []string{"a", "b"}, Metrics{0.5, 1, 1, 1, (l2(1) + l2(3)) / (l2(1) + l2(2))}},
		{[]string{"a", "a"}, []string{"a", "b"}, Metrics{0.5, 0.5, 0.5, 1, l2(1) / (l2(1) + l2(2))}},
	}
	for _, tt := range tests {
		got := Score(tt.got, tt.relevant)
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("Score(%q, %q) (-want +got):\n%s", tt.got, tt.relevant, diff)
		}
	}
}

func TestEvaluate(t *testing.T) {
	docs := []rank.Doc{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	results := map[string][]string{
		"qa":    {"a", "b"},
		"qb":    {"a", "b"},
		"none":  {"c"},
		"none2": nil,
	}
	r := func(q string, k int) []string { return results[q] }
	qs := []Query{
		{Query: "qa", Relevant: []string{"a"}},
		{Query: "qb", Relevant: []string{"b"}},
		{Query: "bad", Relevant: []string{"a", "zzz"}},
		{Query: "none", Relevant: nil},
		{Query: "none2", Relevant: []string{}},
	}
	rep := Evaluate(docs, qs, r)
	want := Report{
		Queries: 2, Recall1: 0.5, Recall5: 1, Recall10: 1, MRR10: 0.75, NDCG10: (1 + 1/math.Log2(3)) / 2,
		EmptyQueries: 2, EmptyMeanResults: 0.5, EmptyAnswered: 0.5,
		PageTools: 1.25, PageBytes: 1.25, // one byte of text per tool
		Skipped: []Skip{{Index: 2, Unknown: "zzz"}},
	}
	if diff := cmp.Diff(want, rep, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Evaluate (-want +got):\n%s", diff)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "c.json")
	os.WriteFile(cat, []byte(`[{"name":"a","title":null,"description":"d","inputSchema":{}},{"name":"b","title":"T","description":"e"}]`), 0o600)
	docs, err := LoadCatalog(cat)
	if err != nil {
		t.Fatal(err)
	}
	if want := []rank.Doc{{Name: "a", Description: "d"}, {Name: "b", Title: "T", Description: "e"}}; !cmp.Equal(docs, want) {
		t.Errorf("LoadCatalog = %+v, want %+v", docs, want)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"not":"an array"}`), 0o600)
	if _, err := LoadCatalog(bad); !errors.Is(err, ErrFormat) {
		t.Errorf("LoadCatalog(object) error = %v, want ErrFormat", err)
	}
	if _, err := LoadQueries(bad); !errors.Is(err, ErrFormat) {
		t.Errorf("LoadQueries(object) error = %v, want ErrFormat", err)
	}
	os.WriteFile(bad, []byte(`[{"description":"no name"}]`), 0o600)
	if _, err := LoadCatalog(bad); !errors.Is(err, ErrFormat) {
		t.Errorf("LoadCatalog(nameless tool) error = %v, want ErrFormat", err)
	}
}

func TestSynthetic(t *testing.T) {
	docs, real, err := Synthetic(t.TempDir(), 500)
	if err != nil || real || len(docs) != 500 {
		t.Fatalf("Synthetic(empty dir) = %d docs, real %v, %v; want 500 generated", len(docs), real, err)
	}
	dir := "../../../shared/data/catalogs"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real catalogs absent (%s): generated catalog only", dir)
	}
	docs, real, err = Synthetic(dir, 2000)
	if err != nil || !real || len(docs) != 2000 {
		t.Fatalf("Synthetic(real) = %d docs, real %v, %v; want 2000 real", len(docs), real, err)
	}
	seen := map[string]bool{}
	for _, d := range docs {
		if seen[d.Name] {
			t.Fatalf("Synthetic: duplicate name %q", d.Name)
		}
		seen[d.Name] = true
	}
	if len(BenchQueries) != 100 {
		t.Errorf("len(BenchQueries) = %d, want 100", len(BenchQueries))
	}
}

func TestEvaluateByKind(t *testing.T) {
	docs := []rank.Doc{{Name: "a"}, {Name: "bb"}}
	results := map[string][]string{"p": {"bb", "a"}, "n": {"a"}, "m": nil}
	r := func(q string, k int) []string { return results[q] }
	qs := []Query{
		{Query: "p", Relevant: []string{"a"}, Kind: "para"},
		{Query: "n", Kind: "nomatch"},
		{Query: "m", Kind: "nomatch"},
	}
	rep := Evaluate(docs, qs, r)
	if len(rep.ByKind) != 2 {
		t.Fatalf("ByKind has %d kinds, want 2", len(rep.ByKind))
	}
	if p := rep.ByKind["para"]; p.Queries != 1 || p.Recall1 != 0 || p.Recall5 != 1 || p.PageTools != 2 || p.PageBytes != 3 {
		t.Errorf("ByKind[para] = %+v, want 1 query, R@1 0, R@5 1, 2 tools, 3 bytes", p)
	}
	if n := rep.ByKind["nomatch"]; n.EmptyQueries != 2 || n.EmptyAnswered != 0.5 || n.EmptyMeanResults != 0.5 || n.PageTools != 0.5 {
		t.Errorf("ByKind[nomatch] = %+v, want 2 empty queries, half answered empty, 0.5 results", n)
	}
	if rep.PageTools != 1 || rep.Queries != 1 || rep.EmptyQueries != 2 {
		t.Errorf("Report = %+v, want 1 query, 2 empty, 1 tool per page", rep)
	}
}

// malformedText is every text LoadCatalog and LoadQueries may report a malformed file
// with: fixed words and a byte count, nothing taken from the file.
var malformedText = regexp.MustCompile(`^rankeval: malformed file: (catalog|queries)(: (invalid JSON|a value of the wrong JSON type) after byte [0-9]+|: tool without a name)?$`)

// FuzzLoadFiles: whatever bytes a catalog or queries file holds, loading it either
// succeeds or fails with ErrFormat in one of the fixed texts of malformedText: no
// character, member name or Go type of the file's reaches the error.
func FuzzLoadFiles(f *testing.F) {
	for _, seed := range []string{
		`[{"name": "x", "description": "X."}]`, `[{"name": "x"} Zsecret]`, "[{\"name\": \"a\x01b\"}]",
		`[{"name": ["Qsecret"]}]`, `{"Qsecret": 1}`, `[{"name": "Qsecret`, `[{"query": "x"}, Wsecret]`,
		`[{"query": 1e999}]`, `[{"description": "no name"}]`, ``,
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "file.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, errC := LoadCatalog(path)
		_, errQ := LoadQueries(path)
		for _, err := range []error{errC, errQ} {
			if err == nil {
				continue
			}
			if !errors.Is(err, ErrFormat) || !malformedText.MatchString(err.Error()) {
				t.Errorf("error %q for %q: want ErrFormat in a fixed text", err, data)
			}
		}
	})
}
