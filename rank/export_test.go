package rank

// Test hooks into the unexported scoring constants and analyzer.

type Params = params

var DefaultParams = defaultParams

func NewIndexParams(docs []Doc, p Params) *Index { return newIndex(docs, p) }

// Analyze returns the terms of text.
func Analyze(text string) []string {
	a := newAnalyzer(0)
	a.add(text)
	out := make([]string, a.n())
	for i := range out {
		out[i] = string(a.term(i))
	}
	return out
}

const (
	FeatSplit    = featSplit
	FeatStem     = featStem
	FeatStop     = featStop
	FeatAbbrev   = featAbbrev
	FeatSynonyms = featSynonyms
	FeatCJK      = featCJK
	FeatAccents  = featAccents
)

type Feature = feature
