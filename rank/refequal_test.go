package rank

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/internal/catalogtest"
)

// refIndex is the postings the build path computed before it was made faster, by the
// reference analyzer (refanalyze_test.go) and the inversion of commit ffa1030.
type refIndex struct {
	terms     map[string]uint32
	paramOnly []uint32
	off, docs []uint32
	sat       []float32
	maxSat    []float32
}

// buildRef builds the reference postings of docs the way newIndex did: terms numbered in
// the order first met, one list per term in doc order, then the lists of docs holding a
// term in their parameters alone.
func buildRef(docs []Doc, p params) refIndex {
	r := refIndex{terms: map[string]uint32{}}
	an := refNewAnalyzer(p.Off)
	an.surface = p.Surf > 0
	var lists, plists [][]posting
	var paramOnly []uint32
	for i, d := range docs {
		tf := map[uint32]*[numFields]uint16{}
		var seen []uint32
		var length [numFields]int
		for f, text := range [numFields]string{d.Name, d.Title, d.Description, d.Params} {
			if f == fieldParams && p.W[f] == 0 {
				continue
			}
			an.reset()
			an.pairs = p.Pair > 0 && f < fieldDesc
			an.surface = p.Surf > 0 && f != fieldParams
			an.add(text)
			length[f] = an.words()
			if f == fieldName && p.Whole {
				an.addWhole()
			}
			for k := 0; k < an.n(); k++ {
				t := string(an.term(k))
				id, ok := r.terms[t]
				if !ok {
					id = uint32(len(r.terms))
					r.terms[t] = id
				}
				c := tf[id]
				if c == nil {
					c = new([numFields]uint16)
					tf[id] = c
					seen = append(seen, id)
				}
				if c[f] < math.MaxUint16 {
					c[f]++
				}
			}
		}
		var norm [numFields]float64
		for f := range norm {
			norm[f] = 1 - p.B[f] + p.B[f]*float64(length[f])/p.Pivot[f]
		}
		for _, id := range seen {
			c := *tf[id]
			e := posting{uint32(i), float32(p.saturation(c, norm))}
			for int(id) >= len(lists) {
				lists = append(lists, nil)
			}
			if !p.Joined && c[fieldName] == 0 && c[fieldTitle] == 0 && c[fieldDesc] == 0 {
				for len(paramOnly) <= int(id) {
					paramOnly = append(paramOnly, noTerm)
				}
				if paramOnly[id] == noTerm {
					paramOnly[id] = uint32(len(plists))
					plists = append(plists, nil)
				}
				plists[paramOnly[id]] = append(plists[paramOnly[id]], e)
				continue
			}
			lists[id] = append(lists[id], e)
		}
	}
	if len(plists) > 0 {
		for len(paramOnly) < len(lists) {
			paramOnly = append(paramOnly, noTerm)
		}
		for t, j := range paramOnly {
			if j != noTerm {
				paramOnly[t] = uint32(len(lists)) + j
			}
		}
		lists = append(lists, plists...)
		r.paramOnly = paramOnly
	}
	r.maxSat = make([]float32, len(lists))
	for t, l := range lists {
		r.off = append(r.off, uint32(len(r.docs)))
		for _, e := range l {
			r.docs = append(r.docs, e.doc)
			r.sat = append(r.sat, e.sat)
			r.maxSat[t] = max(r.maxSat[t], e.sat)
		}
	}
	r.off = append(r.off, uint32(len(r.docs)))
	return r
}

// sameFloats reports whether a and b hold the same float32s, bit for bit.
func sameFloats(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}

// checkIndexMatchesRef fails t unless newIndex(docs, p) holds exactly the reference's
// terms, ids, postings and saturations.
func checkIndexMatchesRef(t *testing.T, name string, docs []Doc, p params) {
	t.Helper()
	ix, ref := newIndex(docs, p), buildRef(docs, p)
	if len(ix.terms) != len(ref.terms) {
		t.Fatalf("%s: %d terms, reference %d", name, len(ix.terms), len(ref.terms))
	}
	for term, id := range ref.terms {
		if got, ok := ix.terms[term]; !ok || got != id {
			t.Fatalf("%s: term %q has id %d (present %v), reference %d", name, term, got, ok, id)
		}
	}
	switch {
	case !slices.Equal(ix.paramOnly, ref.paramOnly):
		t.Fatalf("%s: parameter-only lists differ", name)
	case !slices.Equal(ix.off, ref.off):
		t.Fatalf("%s: list offsets differ", name)
	case !slices.Equal(ix.docs, ref.docs):
		t.Fatalf("%s: postings differ", name)
	case !sameFloats(ix.sat, ref.sat):
		t.Fatalf("%s: saturations differ", name)
	case !sameFloats(ix.maxSat, ref.maxSat):
		t.Fatalf("%s: largest saturations differ", name)
	}
}

// analyzerModes are the settings an analyzer is used with: documents' fields (pairs,
// words as written), queries (synonyms too), and every feature turned off in turn.
var analyzerModes = []struct {
	pairs, surface, synonyms bool
	off                      feature
}{
	{false, false, false, 0}, {true, true, false, 0}, {false, true, false, 0},
	{true, true, true, 0}, {true, false, true, 0},
	{true, true, true, featSplit}, {true, true, true, featStem}, {true, true, true, featStop},
	{true, true, true, featAbbrev}, {true, true, true, featSynonyms}, {true, true, true, featCJK},
	{true, true, true, featAccents},
}

// checkAnalysisMatchesRef fails t unless the analyzer gives exactly the reference's terms,
// kinds, parents and word counts for every text in every mode.
func checkAnalysisMatchesRef(t *testing.T, texts []string) {
	t.Helper()
	// The order of a word's synonyms comes from iterating a map in init: the reference
	// takes the package's, so both emit them in one order.
	maps.Copy(refSynonyms, synonyms)
	for _, m := range analyzerModes {
		an, ref := newAnalyzer(m.off), refNewAnalyzer(m.off)
		an.pairs, an.surface, an.synonyms = m.pairs, m.surface, m.synonyms
		ref.pairs, ref.surface, ref.synonyms = m.pairs, m.surface, m.synonyms
		for _, text := range texts {
			an.reset()
			ref.reset()
			an.add(text)
			ref.add(text)
			an.addWhole()
			ref.addWhole()
			if !slices.Equal(an.out, ref.out) || !slices.Equal(an.ends, ref.ends) ||
				!slices.Equal(an.kind, ref.kind) || !slices.Equal(an.parent, ref.parent) ||
				an.words() != ref.words() {
				t.Fatalf("mode %+v, text %q: terms %q %v %v %v, reference %q %v %v %v", m, text,
					an.out, an.ends, an.kind, an.parent, ref.out, ref.ends, ref.kind, ref.parent)
			}
		}
	}
}

// docTexts returns every field of docs.
func docTexts(docs []Doc) []string {
	var texts []string
	for _, d := range docs {
		texts = append(texts, d.Name, d.Title, d.Description, d.Params)
	}
	return texts
}

// toolDocs makes Docs of tool definitions the way rankeval.LoadCatalog does.
func toolDocs(t *testing.T, tools []json.RawMessage) []Doc {
	t.Helper()
	docs := make([]Doc, len(tools))
	for i, raw := range tools {
		var tool struct {
			Name        string          `json:"name"`
			Title       string          `json:"title"`
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		docs[i] = Doc{Name: tool.Name, Title: tool.Title, Description: tool.Description, Params: ParamText(tool.Schema)}
	}
	return docs
}

// trickyTexts exercise the analyzer's rarer paths: Unicode case and compatibility forms,
// accents, CJK runs, camelCase, apostrophes, stop words, abbreviations, long tokens,
// invalid UTF-8.
var trickyTexts = []string{
	"", " ", "a", "listing branches", "merge PR", "创建代码仓库", "Crème brûlée", "the of",
	"getFileContents", "\xff\xfe", "ＡＢＣ", strings.Repeat("list ", 300), "a-b_c.d/e",
	"IDs VMs HTTPServer", "HTTPSConnection getV2Config listBranches JavaScript iOS macOS",
	"user's users’ don't it's o'clock 'quoted' rock'n'roll", "ß straße STRASSE ǅemal İstanbul ΣΊΣΥΦΟΣ",
	"ﬁle ﬂow ℌello ①② ＴＥＳＴ ｱｲｳ ﾃｽﾄ", "日本語のテキスト、カタカナー。한국어 텍스트 中文abc中文",
	"x中y", "中", "中 文", "e\u0301 cafe\u0301 nai\u0308ve", "\u0301lead mark", "set up a repo; spin up VMs; tear down envs; kick off CI; shut down k8s; get rid of PRs",
	"make new folder and show me the docs please", "organisation organisations organising",
	strings.Repeat("A", 100), strings.Repeat("é", 70), strings.Repeat("語", 40), strings.Repeat("aB", 50),
	"kubernetes windows series species news https postgres alias atlas bias canvas",
	"running stopped created creating flies tried agreed needed seeing dying buses status analysis",
	"Ⅳ ⅳ ǈ ǉ ﬀ K Å Ω ſ ẞ", "a\tb\nc\rd\x00e\x7ff", "x1y2 V2 2fa 10GB", "ID ID's IDs IDS",
	"ÀÉÎÕÜ àéîõü ÇçÑñ", "АБВ где Ёж", "ابجد", "שלום", "नमस्ते", "ไทย", "ⅫLXX",
}

// fuzzSeeds returns the queries of the committed seed corpus of FuzzSearch.
func fuzzSeeds(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzSearch", "*"))
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(string(data), "\n") {
			if q, ok := strings.CutPrefix(line, "string("); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// TestAnalysisMatchesReference checks that the faster build path analyses and indexes
// exactly as the reference (the code before it): the same terms, kinds and parents for
// each text, and the same term ids, postings and saturations, bit for bit, for the real
// catalogs, generated catalogs, and texts that reach the analyzer's rarer paths.
func TestAnalysisMatchesReference(t *testing.T) {
	variants := []params{defaultParams}
	for _, f := range []feature{featSplit, featStem, featStop, featAbbrev, featCJK, featAccents} {
		p := defaultParams
		p.Off = f
		variants = append(variants, p)
	}
	joined := defaultParams
	joined.Joined, joined.Whole, joined.Pair = true, false, 0
	variants = append(variants, joined)

	t.Run("tricky", func(t *testing.T) {
		texts := append(slices.Clone(trickyTexts), fuzzSeeds(t)...)
		checkAnalysisMatchesRef(t, texts)
		var docs []Doc
		for i, s := range texts {
			docs = append(docs, Doc{Name: s, Title: texts[(i+1)%len(texts)], Description: texts[(i+2)%len(texts)], Params: texts[(i+3)%len(texts)]})
		}
		for _, p := range variants {
			checkIndexMatchesRef(t, "tricky", docs, p)
		}
	})
	t.Run("real", func(t *testing.T) {
		dir := catalogtest.DataDir()
		if dir == "" {
			t.Skip("real catalogs absent from ../shared/data/catalogs: the generated ones are compared")
		}
		var all []Doc
		for _, c := range catalogtest.Catalogs {
			data, err := os.ReadFile(filepath.Join(dir, c+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var tools []json.RawMessage
			if err := json.Unmarshal(data, &tools); err != nil {
				t.Fatal(err)
			}
			docs := toolDocs(t, tools)
			checkAnalysisMatchesRef(t, docTexts(docs))
			all = append(all, docs...)
		}
		for _, p := range variants {
			checkIndexMatchesRef(t, "real", all, p)
		}
	})
	t.Run("generated", func(t *testing.T) {
		src, err := catalogtest.Default()
		if err != nil {
			t.Fatal(err)
		}
		n := 3000
		if testing.Short() {
			n = 500
		}
		for _, s := range []*catalogtest.Source{src, catalogtest.Builtin()} {
			docs := toolDocs(t, s.Generate(7, n).Tools)
			checkAnalysisMatchesRef(t, docTexts(docs[:min(len(docs), 500)]))
			checkIndexMatchesRef(t, "generated "+s.String(), docs, defaultParams)
			checkIndexMatchesRef(t, "generated "+s.String(), docs[:min(len(docs), 500)], joined)
		}
	})
}
