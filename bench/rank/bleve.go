// Package rank compares package rank of deferredtools with bleve v2 on the same documents
// and queries: quality (rankeval metrics, side by side) and query time.
//
//	cd bench && go test ./rank -run Compare -v          # quality table
//	cd bench && go test ./rank -run '^$' -bench Search   # speed
package rank

import (
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"

	dtrank "github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// bleveDoc is how a tool is indexed in bleve: three text fields under the default mapping.
type bleveDoc struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// Bleve is an in-memory bleve index over docs with the default mapping.
type Bleve struct {
	idx  bleve.Index
	docs []dtrank.Doc
}

// NewBleve indexes docs (document IDs are their positions) in a new in-memory index made
// by bleve.NewMemOnly (upsidedown over an in-memory key-value store), in one batch.
func NewBleve(docs []dtrank.Doc) (*Bleve, error) {
	idx, err := bleve.NewMemOnly(bleve.NewIndexMapping())
	if err != nil {
		return nil, err
	}
	return fill(idx, docs)
}

// NewBleveScorch is NewBleve on bleve's default index type, scorch, kept in memory (no
// path), in one batch so that the index is one segment.
func NewBleveScorch(docs []dtrank.Doc) (*Bleve, error) {
	idx, err := bleve.NewUsing("", bleve.NewIndexMapping(), scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, err
	}
	return fill(idx, docs)
}

func fill(idx bleve.Index, docs []dtrank.Doc) (*Bleve, error) {
	b := idx.NewBatch()
	for i, d := range docs {
		if err := b.Index(strconv.Itoa(i), bleveDoc{d.Name, d.Title, d.Description}); err != nil {
			return nil, err
		}
	}
	if err := idx.Batch(b); err != nil {
		return nil, err
	}
	return &Bleve{idx: idx, docs: docs}, nil
}

// Query is the bleve query for q: a match query on each of name, title and description,
// any of which may match.
func Query(q string) query.Query {
	var fields []query.Query
	for _, f := range []string{"name", "title", "description"} {
		m := bleve.NewMatchQuery(q)
		m.SetField(f)
		fields = append(fields, m)
	}
	return bleve.NewDisjunctionQuery(fields...)
}

// Search returns the doc indexes of the best k matches of q.
func (b *Bleve) Search(q string, k int) ([]int, error) {
	req := bleve.NewSearchRequestOptions(Query(q), k, 0, false)
	res, err := b.idx.Search(req)
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, len(res.Hits))
	for _, h := range res.Hits {
		i, err := strconv.Atoi(h.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, i)
	}
	return out, nil
}

// Ranker adapts b to rankeval; a search error yields no results.
func (b *Bleve) Ranker() rankeval.Ranker {
	return func(q string, k int) []string {
		ids, err := b.Search(q, k)
		if err != nil {
			return nil
		}
		names := make([]string, len(ids))
		for i, id := range ids {
			names[i] = b.docs[id].Name
		}
		return names
	}
}
