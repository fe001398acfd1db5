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

// AverageLengths returns the mean number of terms of each field over docs.
func AverageLengths(docs []Doc) [numFields]float64 {
	var sum [numFields]float64
	a := newAnalyzer(0)
	for _, d := range docs {
		for f, text := range [numFields]string{d.Name, d.Title, d.Description, d.Params} {
			a.reset()
			a.add(text)
			sum[f] += float64(a.n())
		}
	}
	for f := range sum {
		sum[f] = max(sum[f]/float64(len(docs)), 1)
	}
	return sum
}

// ParamOnlyLists counts the terms whose docs holding them in their parameters alone
// have a list of their own.
func (ix *Index) ParamOnlyLists() int {
	n := 0
	for _, t := range ix.paramOnly {
		if t != noTerm {
			n++
		}
	}
	return n
}
