package rank

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func TestAnalyze(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		// Names split at snake, kebab, dotted and camelCase boundaries.
		{"list_branches", []string{"list", "branch"}},
		{"API-get-block-children", []string{"api", "get", "block", "children"}},
		{"monitor.metrics.query", []string{"monitor", "metric", "query"}},
		{"getPullRequestReviews", []string{"get", "pull", "request", "review"}},
		{"HTTPServerConfig", []string{"http", "server", "configuration"}},
		{"list all VMs and IDs", []string{"list", "all", "virtual", "machin", "ids"}},
		// A word of two camelCase parts is also indexed whole.
		{"JavaScript localStorage", []string{"java", "script", "javascript", "local", "storag", "localstorag"}},
		{"getV2Config", []string{"get", "v2", "configuration"}},
		// Plurals and verb forms fold to one stem.
		{"listing lists listed", []string{"list", "list", "list"}},
		{"creating creates created create", []string{"creat", "creat", "creat", "creat"}},
		{"running merging queries addresses", []string{"run", "merg", "query", "address"}},
		{"copied copying status analysis", []string{"copy", "copy", "status", "analysis"}},
		// Stop words vanish; a query of them only has no terms (DISC-6).
		{"the of and to with", nil},
		{"I want to find a file", []string{"find", "fil"}},
		// Abbreviations expand.
		{"PR", []string{"pull", "request"}},
		{"approve MRs", []string{"approv", "merg", "request"}},
		{"repo db k8s", []string{"repository", "databas", "kubernetes"}},
		// Accents, width and case fold.
		{"Crème BRÛLÉE", []string{"crem", "brule"}},
		{"Straße", []string{"strass"}},
		{"ＣＲＥＡＴＥ", []string{"creat"}},
		{"naïve café", []string{"naiv", "caf"}},
		// CJK runs become character bigrams; a lone character stays a unigram.
		{"创建代码仓库", []string{"创建", "建代", "代码", "码仓", "仓库"}},
		{"ファイル一覧", []string{"ファ", "ァイ", "イル", "ル一", "一覧"}},
		{"库", []string{"库"}},
		{"user's files", []string{"user", "fil"}},
		{"", nil},
		{"\xff\xfe bad utf8", []string{"bad", "utf8"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := Analyze(tt.in)
			if len(got) == 0 {
				got = nil
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Analyze(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSynonymOrder checks a word's synonyms are listed in one fixed (sorted) order, so
// that their scores add up in the same order, to the same bits, in every process.
func TestSynonymOrder(t *testing.T) {
	if got := synonyms["bump"]; len(got) != 2 || string(got[0]) != "set" || string(got[1]) != "updat" {
		t.Errorf(`synonyms["bump"] = %q, want [set updat]`, got)
	}
	for w, canon := range synonyms {
		if !slices.IsSortedFunc(canon, bytes.Compare) {
			t.Errorf("synonyms[%q] = %q, not in sorted order", w, canon)
		}
	}
}

// TestLowerRunLen checks the 8-byte step of addLowerRun against a byte at a time: every
// byte value at every position, after a run of lower-case letters and digits.
func TestLowerRunLen(t *testing.T) {
	for pos := range 8 {
		for b := range 256 {
			var x [8]byte
			copy(x[:], "az09my7q")
			x[pos] = byte(b)
			want := 0
			for want < 8 && lowerOrDigit[x[want]] {
				want++
			}
			if got := lowerRunLen(binary.LittleEndian.Uint64(x[:])); got != want {
				t.Fatalf("lowerRunLen(%q) = %d, want %d", x, got, want)
			}
		}
	}
}

// TestIsASCII checks isASCII's overlapping reads against a byte at a time: texts of 0 to
// 40 bytes with one byte of 0x7f, 0x80 or 0xff at each position.
func TestIsASCII(t *testing.T) {
	for n := range 41 {
		text := []byte(strings.Repeat("a", n))
		if !isASCII(text) {
			t.Fatalf("isASCII(%q) = false", text)
		}
		for pos := range n {
			for _, b := range []byte{0x7f, 0x80, 0xff} {
				x := slices.Clone(text)
				x[pos] = b
				if got, want := isASCII(x), b < utf8.RuneSelf; got != want {
					t.Fatalf("isASCII(%q) = %v, want %v", x, got, want)
				}
			}
		}
	}
}

// classify's table of two-byte code points gives each the class Unicode's tables do.
func TestClassifyTable(t *testing.T) {
	for r := rune(0); r < 0x1100; r++ {
		if got, want := classify(r), classifyWide(r); got != want {
			t.Fatalf("classify(%U) = %d, want %d", r, got, want)
		}
	}
}

// nfkdSeeds are texts where appendNFKD's shortcut meets the Iter's rules: ligatures
// alone, between marks, before a mark (no shortcut), Hangul, many marks (the Iter's
// stream-safe cut), invalid UTF-8.
var nfkdSeeds = []string{
	"", "abc", "\ufdfa", "a\ufdfa\ufdfab", "\ufdfa\u0301", "\u0301\ufdfa", "e\u0301\ufdfa\u0302",
	"\u337f\ufdfb\ufdfa", "한국어\ufdfa", "\ufdfa" + strings.Repeat("\u0301", 40), "\xff\ufdfa\xfe",
	"ﬁ ﬃ ㍿ ㎯ ½ ＡＢ", "\ufdfa\u0f73\u0f71", "création ВЕТКУ",
}

// appendNFKD gives the Iter's decomposition of every seed, and of every character its
// shortcut takes (a long decomposition) between each pair of neighbours of every kind.
func TestAppendNFKD(t *testing.T) {
	for _, s := range nfkdSeeds {
		checkNFKD(t, s)
	}
	neighbours := []string{"", "a", "é", "e\u0301", "\u0301", "\u0316", "\u0f73", "\u0345", "한", "\u1100", "\u1161", "\xff", "\ufdfa", "ﬃ", "＂"}
	taken := 0
	for r := rune(utf8.RuneSelf); r <= utf8.MaxRune; r++ {
		c := string(r)
		if p := norm.NFKD.PropertiesString(c); len(p.Decomposition()) <= longDecomposition {
			continue
		}
		if !longBlock(r) || !longLead[c[0]] {
			t.Errorf("%U decomposes to more than %d bytes, its block is not in longBlock or its first byte in longLead", r, longDecomposition)
		}
		taken++
		for _, before := range neighbours {
			for _, after := range neighbours {
				checkNFKD(t, before+c+after)
			}
		}
	}
	if taken < 100 {
		t.Errorf("%d characters of long decompositions, want the ligatures and more", taken)
	}
}

// FuzzAppendNFKD: appendNFKD gives the Iter's decomposition of any text.
func FuzzAppendNFKD(f *testing.F) {
	for _, s := range nfkdSeeds {
		f.Add(s)
	}
	f.Fuzz(checkNFKD)
}

func checkNFKD(t *testing.T, s string) {
	var it norm.Iter
	want := appendIter(nil, &it, s)
	if got := appendNFKD(nil, &it, s); !bytes.Equal(got, want) {
		t.Fatalf("appendNFKD(%+q) = %+q, the Iter %+q", s, got, want)
	}
}
