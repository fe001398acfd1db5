package rank

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/internal/catalogtest"
)

// The golden digests below pin what the analyzer and the index build produce: every
// term, kind, parent and word count of each text in each analyzer mode, and every term
// id, posting and saturation (bit for bit) of the indexes built from them. They were
// taken from the code the faster build path replaced (ffa1030), which the build path was
// checked against term by term before that code was removed. A change that moves one
// must be one that means to change what the ranker indexes: then re-take them with
// RANK_GOLDEN_PRINT=1 and say why in the commit.
const (
	goldenTrickyAnalysis = "cccd375584464903384ea8d0a2b4aaf0e5143ffe911dce9884d10e146ed57829"
	goldenTrickyIndex    = "8efcbb86e818b72ba67f02c97bf64eb82614e9a2e4475d0e1c5886eaad81b61a"
	goldenRealAnalysis   = "3e07e6616a839056bd2635d05470e3ea61ee24ee1daeea278ee1fa2eba28bd08"
	goldenRealIndex      = "b3fc31f52f775d192d75e9993eb15cd95948d7b0b19c53a8c95f883206319e33"
)

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

// toolDocs makes Docs of tool definitions the way rankeval.LoadCatalog does (which this
// internal test cannot call: rankeval imports rank).
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

// analysisDigest hashes the analyzer's output for every text in every analyzer mode.
func analysisDigest(texts []string) string {
	h := sha256.New()
	num := func(v int) { h.Write(binary.AppendUvarint(nil, uint64(v))) }
	for _, m := range analyzerModes {
		an := newAnalyzer(m.off)
		an.pairs, an.surface, an.synonyms = m.pairs, m.surface, m.synonyms
		for _, text := range texts {
			an.reset()
			an.add(text)
			an.addWhole()
			num(len(an.out))
			h.Write(an.out)
			for k := range an.ends {
				num(int(an.ends[k]))
				num(int(an.kind[k]))
				num(int(an.parent[k]))
			}
			num(an.words())
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// indexDigest hashes the index of docs under every variant of the build parameters:
// its terms with their ids, lists, postings and saturations.
func indexDigest(docs []Doc) string {
	h := sha256.New()
	num := func(v uint64) { h.Write(binary.AppendUvarint(nil, v)) }
	for _, p := range indexVariants() {
		ix := newIndex(docs, p)
		for _, term := range slices.Sorted(func(yield func(string) bool) {
			for t := range ix.terms {
				if !yield(t) {
					return
				}
			}
		}) {
			num(uint64(len(term)))
			h.Write([]byte(term))
			num(uint64(ix.terms[term]))
		}
		off, docs, sat := ix.flat()
		for _, s := range [][]uint32{ix.paramOnly, off, docs} {
			num(uint64(len(s)))
			for _, v := range s {
				num(uint64(v))
			}
		}
		for _, s := range [][]float32{sat, ix.maxSat} {
			num(uint64(len(s)))
			for _, v := range s {
				num(uint64(math.Float32bits(v)))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// indexVariants are the build parameters the digests cover: the defaults, each
// analysis feature turned off, and parameter postings joined.
func indexVariants() []params {
	variants := []params{defaultParams}
	for _, f := range []feature{featSplit, featStem, featStop, featAbbrev, featCJK, featAccents} {
		p := defaultParams
		p.Off = f
		variants = append(variants, p)
	}
	joined := defaultParams
	joined.Joined, joined.Whole, joined.Pair = true, false, 0
	return append(variants, joined)
}

// checkGolden fails t when got is not want, or prints got when RANK_GOLDEN_PRINT is set.
func checkGolden(t *testing.T, what, got, want string) {
	t.Helper()
	if os.Getenv("RANK_GOLDEN_PRINT") != "" {
		t.Logf("%s = %q", what, got)
		return
	}
	if got != want {
		t.Errorf("%s digest %s, want %s: the analysis or the index build changed", what, got, want)
	}
}

// TestAnalysisGolden checks the analyzer and the index build against the golden digests:
// texts that reach the analyzer's rarer paths, and the real catalogs when present.
func TestAnalysisGolden(t *testing.T) {
	t.Run("tricky", func(t *testing.T) {
		checkGolden(t, "goldenTrickyAnalysis", analysisDigest(trickyTexts), goldenTrickyAnalysis)
		var docs []Doc
		for i, s := range trickyTexts {
			n := len(trickyTexts)
			docs = append(docs, Doc{Name: s, Title: trickyTexts[(i+1)%n], Description: trickyTexts[(i+2)%n], Params: trickyTexts[(i+3)%n]})
		}
		checkGolden(t, "goldenTrickyIndex", indexDigest(docs), goldenTrickyIndex)
	})
	t.Run("real", func(t *testing.T) {
		dir := catalogtest.DataDir()
		if dir == "" {
			t.Skip("real catalogs absent from ../shared/data/catalogs: the tricky texts are checked")
		}
		cats, err := catalogtest.ReadCatalogs(dir)
		if err != nil {
			t.Fatal(err)
		}
		var all []Doc
		var texts []string
		for _, tools := range cats {
			docs := toolDocs(t, tools)
			for _, d := range docs {
				texts = append(texts, d.Name, d.Title, d.Description, d.Params)
			}
			all = append(all, docs...)
		}
		checkGolden(t, "goldenRealAnalysis", analysisDigest(texts), goldenRealAnalysis)
		checkGolden(t, "goldenRealIndex", indexDigest(all), goldenRealIndex)
	})
}
