package rank

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// memoDocs are docs whose descriptions and parameters share words with each other and
// with the names and titles, in every order: a word first met where words as written
// are not kept (parameters), then where they are; abbreviations, stop words, words kept
// unstemmed, camelCase words, CJK runs and accents.
func memoDocs() []Doc {
	docs := []Doc{
		{Name: "list_repos", Title: "List repositories", Description: "Lists the repos of a user", Params: "owner Owner of the repos listing pages"},
		{Name: "get_pr", Description: "Gets a PR's reviews; listing pages", Params: "pr_number PR number reviews kubernetes windows"},
		{Name: "create_issue", Title: "Create issue", Description: "Creates an issue with labels", Params: "labels Labels to add creating getFileContents"},
		{Name: "search_code", Description: "getFileContents JavaScript searches code", Params: "query 创建代码仓库 Crème brûlée"},
		{Name: "misc", Description: "创建代码仓库 crème the of a", Params: "the of a I"},
		// memoWords' words: titled, of 8 bytes and more, past maxTokenBytes, at the
		// end of the text, before an apostrophe, camelCase, accents or CJK.
		{Name: "words", Description: "Lists Repositories, repositories: Abcdefgh abcdefgh Abcdefghi. " +
			"Abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz1 user's " +
			"X a1 Z9z V2 listBranches getRepositories caféx a中 ÀB 'quoted' ...Lists",
			Params: "Abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz " +
				"repositories Lists lists_2 Owner's PRs"},
	}
	for i, s := range trickyTexts {
		n := len(trickyTexts)
		docs = append(docs, Doc{Name: fmt.Sprint("t", i), Title: trickyTexts[(i+1)%n], Description: s, Params: trickyTexts[(i+3)%n]})
	}
	return docs
}

// TestWordMemoSameTerms checks that the word memo changes nothing an inverter emits:
// each doc's terms, numbered in the same order, with the same postings, in every
// variant of the parameters the golden digests cover, building from scratch and
// updating an index; with words enough for the memo's table to grow twice.
func TestWordMemoSameTerms(t *testing.T) {
	docs := memoDocs()
	var many strings.Builder // 2,500 distinct words, of 2 to 20 bytes
	for i := range 2500 {
		fmt.Fprintf(&many, "w%s%d ", strings.Repeat("q", i%12), i)
	}
	docs = append(docs, Doc{Name: "many", Description: many.String(), Params: "w7 wqq14 " + many.String()[:4000]})
	// The parameters as pieces, cut at every space and at some: with the memo each
	// piece is analysed where it is, without it the pieces are joined.
	for i, d := range docs[:len(docs)-1] {
		for k, cuts := range []uint64{^uint64(0), 0x5555_5555_5555_5555 << (i % 2)} {
			docs = append(docs, Doc{Name: fmt.Sprint(d.Name, "/pieces", k), Title: d.Title,
				Description: d.Description, ParamPieces: splitPieces(d.Params, cuts)})
		}
	}
	for _, p := range indexVariants() {
		for _, base := range []map[string]uint32{nil, {"list": 0, "repositori": 1, "review": 2}} {
			if slots := checkWordMemo(t, p, base, docs); slots < 4*memoSlots {
				t.Errorf("params %+v: the memo's table has %d slots after 2,500 words", p, slots)
			}
		}
	}
}

// checkWordMemo fails t unless an inverter of p over base emits the same postings and
// terms for docs with its memo and without; it returns the memo's number of slots.
func checkWordMemo(t *testing.T, p params, base map[string]uint32, docs []Doc) int {
	t.Helper()
	type emitted struct {
		id   uint32
		e    posting
		only bool
	}
	run := func(memo bool) ([]emitted, map[string]uint32, int) {
		v := newInverter(p, base, map[string]uint32{})
		if !memo {
			v.memo = nil
		}
		var out []emitted
		for i, d := range docs {
			v.doc(i, d, func(id uint32, e posting, only bool) { out = append(out, emitted{id, e, only}) })
		}
		if !memo {
			return out, v.terms, 0
		}
		// Each word is held once: memoWords, hashing as it reads, finds the
		// slots that find and countWord fill, and the other way round.
		held := map[string]bool{}
		for k := range v.memo.slots {
			if s := &v.memo.slots[k]; s.size > 0 {
				if w := string(v.memo.word(s)); held[w] {
					t.Errorf("params %+v: the memo holds %q twice", p, w)
				} else {
					held[w] = true
				}
			}
		}
		return out, v.terms, len(v.memo.slots)
	}
	want, wantTerms, _ := run(false)
	got, gotTerms, slots := run(true)
	if !slices.Equal(got, want) {
		t.Errorf("params %+v, base %v: with the memo the inverter emits\n%v\nwithout\n%v", p, base, got, want)
	}
	if fmt.Sprint(gotTerms) != fmt.Sprint(wantTerms) {
		t.Errorf("params %+v, base %v: terms with the memo %v, without %v", p, base, gotTerms, wantTerms)
	}
	return slots
}

// splitPieces returns text as Pieces: cut at the spaces whose bit is set in cuts (bit k
// for the kth space, then again from bit 0), each piece followed in Src by bytes that
// would join words, accents and camelCase parts across it if they were read, and one
// span that is no range of Src.
func splitPieces(text string, cuts uint64) *Pieces {
	p := &Pieces{}
	var src strings.Builder
	start, k := 0, 0
	for i := 0; i <= len(text); i++ {
		if i < len(text) && (text[i] != ' ' || cuts>>(k%64)&1 == 0) {
			if i < len(text) && text[i] == ' ' {
				k++
			}
			continue
		}
		k++
		p.Spans = append(p.Spans, uint32(src.Len()))
		src.WriteString(text[start:i])
		p.Spans = append(p.Spans, uint32(src.Len()))
		src.WriteString("\u0301Xy'z中")
		start = i + 1
	}
	p.Src = src.String()
	p.Spans = append(p.Spans, 3, 1)
	return p
}

// TestSplitPieces checks splitPieces' pieces join to the text it was given.
func TestSplitPieces(t *testing.T) {
	for _, text := range append([]string{"a  b ", " x y z"}, trickyTexts...) {
		for _, cuts := range []uint64{0, 1, 2, ^uint64(0)} {
			if got := string(splitPieces(text, cuts).appendText(nil)); got != text {
				t.Errorf("splitPieces(%q, %b) joins to %q", text, cuts, got)
			}
		}
	}
}

// FuzzWordMemo feeds arbitrary text (a catalog's descriptions and parameters are the
// servers', not ours) to the index build's word memo and the analyzer's 8-byte reads:
// it must not panic, and must emit what the inverter emits without the memo, a word
// met first in the parameters or in a description, in any variant of the parameters.
func FuzzWordMemo(f *testing.F) {
	for i, s := range trickyTexts {
		f.Add(s, "owner repo "+s, uint8(0), uint64(i))
	}
	f.Add("abcdefgh abcdefghi abcdefgh1 a1b2c3d4e5f6g7h8 x", "abcdefghijklmnop.qrstuvwx yz", uint8(1), ^uint64(0))
	f.Add("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz zz", "ab\xff"+"cd", uint8(7), uint64(0))
	f.Add("a", "e \u0301x \xe2\x82 \xac \xcc \x81 ab\u0301 \u0301"+strings.Repeat("\u0301", 40)+" \u0301 z", uint8(2), ^uint64(0))
	variants := indexVariants()
	f.Fuzz(func(t *testing.T, desc, params string, variant uint8, cuts uint64) {
		docs := []Doc{
			{Name: "a", Description: desc, Params: params},
			{Name: "b", Title: desc, Description: params, Params: desc},
			{Name: "c", Description: desc, ParamPieces: splitPieces(params, cuts)},
		}
		checkWordMemo(t, variants[int(variant)%len(variants)], nil, docs)
	})
}

// TestLoad checks load, which reads a word's first 8 bytes for the memo: zero padded
// whatever follows the word in its array, and whether or not its array has 8 bytes.
func TestLoad(t *testing.T) {
	text := []byte("abcdefghijklmnop")
	for n := range 10 {
		want := make([]byte, 8)
		copy(want, text[:n])
		for _, w := range [][]byte{text[:n], slices.Clip(text[:n]), slices.Clone(text[:n])} {
			var got [8]byte
			binary.LittleEndian.PutUint64(got[:], load(w))
			if string(got[:]) != string(want) {
				t.Errorf("load(%q) (cap %d) = %q, want %q", w, cap(w), got, want)
			}
		}
	}
}

// TestWordMemoFind checks that the memo's table tells words apart by more than the
// 32-bit hash its slots keep: a word whose slot holds another word's hash, of the same
// length, is not that word when its bytes differ, in its first 8 or after them.
func TestWordMemoFind(t *testing.T) {
	for _, pair := range [][2]string{
		{"abcdefghijkl", "abcdefghijkm"}, // the same first 8 bytes, then not
		{"abcdefgh", "abcdefgx"},         // 8 bytes each
		{"abcxefghijkl", "abcdefghijkl"}, // the same after the 8th byte
		{"abc", "abd"},
		{"abcdefghij", "abcdefgh"}, // the same first 8 bytes, of other lengths
		{"abcdefgh", "abcdefghij"},
	} {
		v := newInverter(defaultParams, nil, map[string]uint32{})
		m := v.memo
		a, b := []byte(pair[0]), []byte(pair[1])
		sa := *m.find(a)
		// a's slot moved to where b's hash starts its search, keeping b's hash.
		hb := uint32(m.hash(b, load(b)))
		clear(m.slots)
		sa.hash = hb
		m.slots[hb&uint32(len(m.slots)-1)] = sa
		sb := m.find(b)
		if *sb == sa {
			t.Errorf("find(%q) found the slot of %q, which holds its hash", b, a)
		}
		if want := v.id(stem(slices.Clone(b))); sb.nids != 1 || sb.id != want {
			t.Errorf("find(%q): %d ids, the first %d, want 1, %d", b, sb.nids, sb.id, want)
		}
		// memoWords, which looks a word up in its first slot itself, tells them
		// apart too: b in a text counts b's stem.
		v = newInverter(defaultParams, nil, map[string]uint32{})
		m = v.memo
		sa = *m.find(a)
		hb = uint32(m.hash(b, load(b)))
		clear(m.slots)
		sa.hash = hb
		m.slots[hb&uint32(len(m.slots)-1)] = sa
		if n := m.add(0, fieldDesc, " "+string(b)+" "); n != 1 {
			t.Errorf("the memo found %d words in %q, want 1", n, b)
		}
		if want := v.id(stem(slices.Clone(b))); v.tf[want].n[fieldDesc] != 1 {
			t.Errorf("the memo counted %q's stem %d times in %q, want once", b, v.tf[want].n[fieldDesc], b)
		}
	}
}
