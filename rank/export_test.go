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

// SetFloor sets the relevance floor's constants and returns a function restoring them.
// A top of 0 turns the tail rule off too.
func SetFloor(top, info, unknown float64) func() {
	t, i, u, tt := floorTop, floorInfo, unknownWeight, tailTop
	floorTop, floorInfo, unknownWeight = top, info, unknown
	if top == 0 {
		tailTop = 0
	}
	return func() { floorTop, floorInfo, unknownWeight, tailTop = t, i, u, tt }
}

// QueryInfo returns the query's informative weight over allowed with unknown words
// weighing as set, as a score would be (not in fixed point).
func (ix *Index) QueryInfo(query string, allowed Set) float64 {
	s := ix.getScratch()
	defer ix.putScratch(s)
	if !s.queryTerms(ix, query) {
		return 0
	}
	allowed, n := ix.clipAllowed(allowed)
	s.weigh(ix, allowed, n)
	return float64(s.info) / scoreScale
}

// SetRelatedWeight sets the weight of related words and returns a function restoring it.
func SetRelatedWeight(w float64) func() {
	return setVar(&relatedWeight, w)
}

// setVar sets *p to v for a test and returns a function restoring it.
func setVar[T any](p *T, v T) (restore func()) {
	old := *p
	*p = v
	return func() { *p = old }
}

// FloorTop is the relevance floor's fraction of the best score.
var FloorTop = floorTop

// SetPartWeight sets the query weight of each word of an abbreviation's expansion of
// several words and returns a function restoring it.
func SetPartWeight(w float64) (restore func()) {
	return setVar(&partWeight, w)
}
