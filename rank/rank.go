// Package rank ranks documents (tool names, titles and descriptions) by local lexical
// match against a short query, over an allowed subset only, deterministically.
package rank

// A Doc is the text of one tool that ranking sees.
type Doc struct {
	Name        string
	Title       string
	Description string
}

// A Hit is one ranked document: its index in the slice given to NewIndex, and its score.
type Hit struct {
	Doc   int
	Score float64
}

// Index is an immutable inverted index over a list of Docs, built once per catalog
// version. It is safe for concurrent use.
type Index struct {
	// implementation owned by the rank package
}

// NewIndex builds the index. Doc i of docs is referred to as i in Sets and Hits.
// Names should be unique; ties in score are broken by Name in ascending byte order.
func NewIndex(docs []Doc) *Index {
	panic("unimplemented")
}

// Len reports the number of docs in the index.
func (ix *Index) Len() int { panic("unimplemented") }

// Search appends to dst the docs of allowed that match query, best first, at most max of
// them, and returns the extended slice. Equal scores are ordered by Name, ascending byte
// order. Every scoring statistic is computed over the docs in allowed only, so a doc
// outside allowed never changes a result (SPEC DISC-5). A query none of whose words
// occur in an allowed doc yields no hits (DISC-6). max <= 0 means no limit.
func (ix *Index) Search(dst []Hit, query string, allowed Set, max int) []Hit {
	panic("unimplemented")
}
