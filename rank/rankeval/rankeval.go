// Package rankeval measures the retrieval quality of a ranker on a labelled query set:
// Recall@1, @5 and @10, MRR@10 and nDCG@10 with binary relevance.
//
// It is ranker-agnostic (a ranker is a function from a query to tool names, best first)
// so that the same numbers can be computed for package rank and for other engines, as the
// comparison module under bench/ does.
package rankeval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/deferredtools/deferredtools/rank"
)

// K is the cut-off of the evaluation: the metrics read the first K results.
const K = 10

// PageLimit is the number of results every query asks the ranker for: discovery's
// largest page (SPEC DISC-2), whose size Report.PageTools and PageBytes measure. The
// metrics read its first K results.
const PageLimit = 16

// A Query is one labelled query: the tools that answer it, by name. An empty Relevant
// means no tool should match; such queries are measured by the number of results. Kind,
// optional, names the kind of query (paraphrase, task, nomatch...): Report.ByKind
// measures each kind apart.
type Query struct {
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
	Kind     string   `json:"kind,omitempty"`
}

// A Ranker returns the names of at most k tools for query, best first.
type Ranker func(query string, k int) []string

// A Skip is a query left out of the evaluation because it names a tool the catalog lacks.
type Skip struct {
	Index   int    `json:"index"`   // position of the query in the query file
	Unknown string `json:"unknown"` // the first unknown tool name
}

// A Report is the outcome of an evaluation. The metrics are means over the evaluated
// queries that have relevant tools.
type Report struct {
	Queries  int     `json:"queries"` // queries with relevant tools, evaluated
	Recall1  float64 `json:"recall@1"`
	Recall5  float64 `json:"recall@5"`
	Recall10 float64 `json:"recall@10"`
	MRR10    float64 `json:"mrr@10"`
	NDCG10   float64 `json:"ndcg@10"`

	EmptyQueries     int     `json:"empty_queries"`      // queries with no relevant tool
	EmptyMeanResults float64 `json:"empty_mean_results"` // mean number of results they got (at most K)
	EmptyAnswered    float64 `json:"empty_answered"`     // share of them answered with no result

	// PageTools and PageBytes are the mean number of results at limit PageLimit, and of
	// bytes of their text (name, title, description and parameter text), over every
	// evaluated query.
	PageTools float64 `json:"page_tools"`
	PageBytes float64 `json:"page_bytes"`

	// ByKind holds the report of each Kind of query, when some query has one; a query
	// without a kind counts under "".
	ByKind map[string]*Report `json:"by_kind,omitempty"`

	Skipped []Skip `json:"skipped"` // the queries naming a tool docs lack, not evaluated
}

// ErrFormat reports a catalog or query file that is not the expected JSON.
var ErrFormat = errors.New("rankeval: malformed file")

// LoadCatalog reads a JSON array of tools ({name, title?, description, inputSchema?,
// ...}; other members are ignored) as rank Docs, in file order, with the text of each
// tool's parameters ([rank.ParamText]) as the Doc's Params.
func LoadCatalog(path string) ([]rank.Doc, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tools []struct {
		Name        string          `json:"name"`
		Title       *string         `json:"title"`
		Description string          `json:"description"`
		Schema      json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(data, &tools); err != nil {
		return nil, formatError("catalog", err)
	}
	docs := make([]rank.Doc, len(tools))
	for i, t := range tools {
		if t.Name == "" {
			return nil, fmt.Errorf("%w: catalog: tool without a name", ErrFormat)
		}
		docs[i] = rank.Doc{Name: t.Name, Description: t.Description, Params: rank.ParamText(t.Schema)}
		if t.Title != nil {
			docs[i].Title = *t.Title
		}
	}
	return docs, nil
}

// LoadQueries reads a JSON array of queries.
func LoadQueries(path string) ([]Query, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var qs []Query
	if err := json.Unmarshal(data, &qs); err != nil {
		return nil, formatError("queries", err)
	}
	return qs, nil
}

// formatError is the ErrFormat of file ("catalog", "queries") that err, from
// encoding/json, reports: a fixed text and how many bytes were read when decoding
// stopped, never err's text, which quotes the file's characters and Go types.
func formatError(file string, err error) error {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("%w: %s: invalid JSON after byte %d", ErrFormat, file, syntax.Offset)
	case errors.As(err, &typ):
		return fmt.Errorf("%w: %s: a value of the wrong JSON type after byte %d", ErrFormat, file, typ.Offset)
	}
	return fmt.Errorf("%w: %s", ErrFormat, file)
}

// Ours returns a Ranker backed by package rank over docs, every doc allowed.
func Ours(docs []rank.Doc) Ranker {
	ix := rank.NewIndex(docs)
	all := rank.NewSet(len(docs))
	for i := range docs {
		all.Add(i)
	}
	return func(query string, k int) []string {
		hits := ix.Search(nil, query, all, k)
		names := make([]string, len(hits))
		for i, h := range hits {
			names[i] = docs[h.Doc].Name
		}
		return names
	}
}

// Run reads the catalog and queries files (LoadCatalog, LoadQueries), ranks every query
// with Ours, over names, titles and descriptions alone unless params, and writes the
// report to w: one indented JSON object when asJSON, else a line "N tools, M queries"
// and the report's text. Its errors are those of the loads (a read error names its
// file's path: the caller decides whether to show it) and of w; a nil w is refused
// with ErrNilWriter before anything is read.
func Run(w io.Writer, catalogPath, queriesPath string, params, asJSON bool) error {
	if w == nil {
		return ErrNilWriter
	}
	docs, qs, err := load(catalogPath, queriesPath, params)
	if err != nil {
		return err
	}
	rep := Evaluate(docs, qs, Ours(docs))
	if asJSON {
		if rep.Skipped == nil {
			rep.Skipped = []Skip{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	if _, err := fmt.Fprintf(w, "%d tools, %d queries\n", len(docs), len(qs)); err != nil {
		return err
	}
	_, err = fmt.Fprint(w, rep)
	return err
}

// Evaluate runs every query through r with limit PageLimit and scores its first K
// results. Queries naming a tool absent from docs are listed in Report.Skipped and not
// counted. A nil r finds nothing for any query.
func Evaluate(docs []rank.Doc, queries []Query, r Ranker) Report {
	if r == nil {
		r = func(string, int) []string { return nil }
	}
	known := make(map[string]int, len(docs))
	for i, d := range docs {
		known[d.Name] = i
	}
	var rep Report
	var acc, kinds = &tally{}, map[string]*tally{}
	tagged := false
queries:
	for i, q := range queries {
		for _, name := range q.Relevant {
			if _, ok := known[name]; !ok {
				rep.Skipped = append(rep.Skipped, Skip{Index: i, Unknown: name})
				continue queries
			}
		}
		got := r(q.Query, PageLimit)
		if len(got) > PageLimit {
			got = got[:PageLimit]
		}
		bytes := 0
		for _, name := range got {
			if d, ok := known[name]; ok {
				bytes += len(docs[d].Name) + len(docs[d].Title) + len(docs[d].Description) + len(docs[d].Params)
			}
		}
		top := got[:min(len(got), K)]
		var m Metrics
		if len(q.Relevant) > 0 {
			m = Score(top, q.Relevant)
		}
		tagged = tagged || q.Kind != ""
		k := kinds[q.Kind]
		if k == nil {
			k = &tally{}
			kinds[q.Kind] = k
		}
		for _, t := range [...]*tally{acc, k} {
			t.add(m, len(q.Relevant) == 0, len(top), len(got), bytes)
		}
	}
	acc.report(&rep)
	if tagged {
		rep.ByKind = make(map[string]*Report, len(kinds))
		for name, k := range kinds {
			kr := &Report{}
			k.report(kr)
			rep.ByKind[name] = kr
		}
	}
	return rep
}

// A tally sums the metrics of a group of queries.
type tally struct {
	m                      Metrics
	queries, empty         int
	emptyResults, answered int
	all, pageTools, bytes  int
}

func (t *tally) add(m Metrics, empty bool, results, page, bytes int) {
	t.all++
	t.pageTools += page
	t.bytes += bytes
	if empty {
		t.empty++
		t.emptyResults += results
		if results == 0 {
			t.answered++
		}
		return
	}
	t.queries++
	t.m.Recall1 += m.Recall1
	t.m.Recall5 += m.Recall5
	t.m.Recall10 += m.Recall10
	t.m.MRR10 += m.MRR10
	t.m.NDCG10 += m.NDCG10
}

// report writes the means of t into r.
func (t *tally) report(r *Report) {
	r.Queries, r.EmptyQueries = t.queries, t.empty
	if t.queries > 0 {
		n := float64(t.queries)
		r.Recall1, r.Recall5, r.Recall10 = t.m.Recall1/n, t.m.Recall5/n, t.m.Recall10/n
		r.MRR10, r.NDCG10 = t.m.MRR10/n, t.m.NDCG10/n
	}
	if t.empty > 0 {
		r.EmptyMeanResults = float64(t.emptyResults) / float64(t.empty)
		r.EmptyAnswered = float64(t.answered) / float64(t.empty)
	}
	if t.all > 0 {
		r.PageTools = float64(t.pageTools) / float64(t.all)
		r.PageBytes = float64(t.bytes) / float64(t.all)
	}
}

// Metrics are the scores of one query.
type Metrics struct {
	// Recall@1, @5 and @10 (the share of the relevant tools found in the first 1, 5 and
	// 10 results), MRR@10 and nDCG@10, each from 0 to 1.
	Recall1, Recall5, Recall10, MRR10, NDCG10 float64
}

// Score computes the metrics of one ranked list of names against the relevant names
// (binary relevance; duplicates in either list count once).
func Score(got, relevant []string) Metrics {
	rel := make(map[string]bool, len(relevant))
	for _, r := range relevant {
		rel[r] = true
	}
	var m Metrics
	if len(rel) == 0 {
		return m
	}
	seen := make(map[string]bool, len(got))
	found := 0
	dcg := 0.0
	for i, name := range got {
		if i >= K {
			break
		}
		if !rel[name] || seen[name] {
			continue
		}
		seen[name] = true
		found++
		if m.MRR10 == 0 {
			m.MRR10 = 1 / float64(i+1)
		}
		dcg += 1 / math.Log2(float64(i+2))
		r := float64(found) / float64(len(rel))
		if i < 1 {
			m.Recall1 = r
		}
		if i < 5 {
			m.Recall5 = r
		}
		m.Recall10 = r
	}
	idcg := 0.0
	for i := 0; i < len(rel) && i < K; i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	m.NDCG10 = dcg / idcg
	return m
}

// String formats the report as a small table.
func (r Report) String() string {
	s := fmt.Sprintf("queries    %d\nRecall@1   %.4f\nRecall@5   %.4f\nRecall@10  %.4f\nMRR@10     %.4f\nnDCG@10    %.4f\n",
		r.Queries, r.Recall1, r.Recall5, r.Recall10, r.MRR10, r.NDCG10)
	if r.EmptyQueries > 0 {
		s += fmt.Sprintf("no-answer queries  %d, mean results %.2f, answered empty %.2f\n", r.EmptyQueries, r.EmptyMeanResults, r.EmptyAnswered)
	}
	s += fmt.Sprintf("first page at limit %d: %.2f tools, %.0f bytes\n", PageLimit, r.PageTools, r.PageBytes)
	for _, k := range slices.Sorted(maps.Keys(r.ByKind)) {
		b := r.ByKind[k]
		s += fmt.Sprintf("kind %-12q n=%d R@5 %.4f R@10 %.4f nDCG@10 %.4f empty %d (answered empty %.2f) page %.2f tools %.0f bytes\n",
			k, b.Queries, b.Recall5, b.Recall10, b.NDCG10, b.EmptyQueries, b.EmptyAnswered, b.PageTools, b.PageBytes)
	}
	for _, sk := range r.Skipped {
		s += fmt.Sprintf("skipped query %d: unknown tool %q\n", sk.Index, sk.Unknown)
	}
	return s
}

// load reads the catalog and queries files for Run and RunExplain, the docs' params
// cleared unless params.
func load(catalogPath, queriesPath string, params bool) ([]rank.Doc, []Query, error) {
	docs, err := LoadCatalog(catalogPath)
	if err != nil {
		return nil, nil, err
	}
	if !params {
		for i := range docs {
			docs[i].Params = ""
		}
	}
	qs, err := LoadQueries(queriesPath)
	if err != nil {
		return nil, nil, err
	}
	return docs, qs, nil
}

// RunExplain reads the catalog and queries files as Run does and writes, for each query,
// its best k hits over every tool, each with the query terms it matches: where each term
// comes from, the fields holding it and what it adds to the score ([rank.Index.Explain]).
// A relevant hit is starred. A nil w is refused with ErrNilWriter, as by Run.
func RunExplain(w io.Writer, catalogPath, queriesPath string, params bool, k int) error {
	if w == nil {
		return ErrNilWriter
	}
	docs, qs, err := load(catalogPath, queriesPath, params)
	if err != nil {
		return err
	}
	ix := rank.NewIndex(docs)
	all := rank.NewSet(len(docs))
	for i := range docs {
		all.Add(i)
	}
	for _, q := range qs {
		if _, err := fmt.Fprintf(w, "%q\n", q.Query); err != nil {
			return err
		}
		for i, h := range ix.Search(nil, q.Query, all, k) {
			mark := " "
			if slices.Contains(q.Relevant, docs[h.Doc].Name) {
				mark = "*"
			}
			line := fmt.Sprintf("%s%2d %-40s %7.3f ", mark, i+1, docs[h.Doc].Name, h.Score)
			for _, m := range ix.Explain(q.Query, all, h.Doc, docs[h.Doc]) {
				line += fmt.Sprintf(" %s(%s)%.3f", m.Term, strings.TrimSpace(m.From+" "+strings.Join(m.Fields, ",")), m.Score)
			}
			if _, err := fmt.Fprintln(w, line); err != nil {
				return err
			}
		}
	}
	return nil
}

// ErrNilWriter is the answer of Run and RunExplain to a nil io.Writer.
var ErrNilWriter = errors.New("rankeval: nil writer")
